import Foundation
import TelemetryKit
import TelemetryKitSupport
import TelemetryKitTesting
import Testing

struct EventJSONCodecTests {
    static let samples = EventCacheConformance.payloadSamples

    @Test(arguments: samples)
    func roundTripsEveryFieldExactly(_ event: Event) throws {
        let encoded = EventJSONCodec.encode(event)
        let decoded = try EventJSONCodec.decode(encoded)
        #expect(decoded == event)
        #expect(!encoded.contains(0x0A), "one line: newlines inside strings are escaped")
    }

    @Test func doublesKeepAFractionSoTheyReadBackAsDoubles() throws {
        let event = Event(
            appID: "A",
            type: "T",
            clientUser: "u",
            receivedAt: Date(timeIntervalSince1970: 0),
            payload: ["one": .double(1), "big": .double(1e20), "int": .int(1)]
        )
        let text = String(decoding: EventJSONCodec.encode(event), as: UTF8.self)
        #expect(text.contains(#""one":1.0"#))
        #expect(text.contains(#""big":1e+20"#))
        #expect(text.contains(#""int":1"#) && !text.contains(#""int":1."#))
        let decoded = try EventJSONCodec.decode(Array(text.utf8))
        #expect(decoded.payload == ["one": .double(1), "big": .double(1e20), "int": .int(1)])
    }

    @Test func writesTheKeysAndFormatOfEventsCodableForm() throws {
        let event = Event(
            id: UUID(uuidString: "0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D") ?? UUID(),
            appID: "APP",
            type: "Screen.shown",
            clientUser: "abc",
            sessionID: "S",
            receivedAt: Date(timeIntervalSince1970: 1_718_460_000.123),
            payload: ["screen": .string("home")],
            floatValue: 2.5,
            isTestMode: true
        )
        let text = String(decoding: EventJSONCodec.encode(event), as: UTF8.self)
        #expect(
            text == #"{"id":"0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D","appID":"APP","type":"Screen.shown","#
                + #""clientUser":"abc","sessionID":"S","receivedAt":"2024-06-15T14:00:00.123Z","#
                + #""payload":{"screen":"home"},"floatValue":2.5,"isTestMode":true}"#
        )
        #expect(try JSONDecoder().decode(Event.self, from: Data(text.utf8)) == event)
    }

    @Test func readsWhatJSONEncoderWrites() throws {
        let event = Event(
            appID: "APP",
            type: "Encoded.by.Foundation",
            clientUser: "u",
            sessionID: nil,
            receivedAt: Date(timeIntervalSince1970: 1_718_460_000.5),
            payload: ["s": .string("a \"quoted\" / value\n"), "i": .int(-12), "d": .double(0.25), "b": .bool(false)],
            floatValue: 0.75
        )
        let data = try JSONEncoder().encode(event)
        #expect(try EventJSONCodec.decode(data) == event)
    }

    @Test func readsEscapesIncludingSurrogatePairs() throws {
        let line =
            #"{"id":"0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d","appID":"A","type":"\ud83d\ude80 \u00e9\/\b\f","#
            + #""clientUser":"u","receivedAt":1718460000.25,"payload":{}}"#
        let event = try EventJSONCodec.decode(Array(line.utf8))
        #expect(event.type == "🚀 é/\u{8}\u{C}")
        #expect(event.id.uuidString == "0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D")
        #expect(event.receivedAt == Date(timeIntervalSince1970: 1_718_460_000.25))
        #expect(event.isTestMode == "false")
        #expect(event.sessionID == nil)
    }

    @Test func skipsUnknownKeysOfAnyShape() throws {
        let line =
            #"{"future":{"a":[1,2,{"b":null}],"c":"d"},"id":"0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D","#
            + #""appID":"A","type":"T","clientUser":"u","receivedAt":"2024-06-15T14:00:00.123Z","#
            + #""sessionID":null,"floatValue":null,"list":[],"payload":{"k":true},"more":-1.5e3}"#
        let event = try EventJSONCodec.decode(Array(line.utf8))
        #expect(event.type == "T")
        #expect(event.payload == ["k": .bool(true)])
        #expect(event.floatValue == nil)
    }

    @Test func integersBeyondInt64ReadAsDoubles() throws {
        let line =
            #"{"id":"0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D","appID":"A","type":"T","clientUser":"u","#
            + #""receivedAt":"2024-06-15T14:00:00.123Z","payload":{"big":9223372036854775808,"#
            + #""max":9223372036854775807,"min":-9223372036854775808}}"#
        let event = try EventJSONCodec.decode(Array(line.utf8))
        #expect(event.payload["big"] == .double(9_223_372_036_854_775_808))
        #expect(event.payload["max"] == .int(Int64.max))
        #expect(event.payload["min"] == .int(Int64.min))
    }

    @Test func everyTruncationOfALineIsRejected() throws {
        let encoded = EventJSONCodec.encode(Self.samples[1])
        for length in 0..<encoded.count {
            #expect(throws: EventJSONCodecError.self, "prefix of \(length) bytes") {
                try EventJSONCodec.decode(encoded[..<length])
            }
        }
    }

    static let invalidLines: [String] = [
        "",
        "not json",
        "[]",
        #"{"appID":"A","type":"T","clientUser":"u","receivedAt":"2024-06-15T14:00:00.123Z"}"#,
        #"{"id":"not-a-uuid","appID":"A","type":"T","clientUser":"u","receivedAt":"2024-06-15T14:00:00Z"}"#,
        #"{"id":"0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D","appID":"A","type":"T","clientUser":"u","receivedAt":"yesterday"}"#,
        #"{"id":"0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D","appID":"A","type":"T","clientUser":"u","receivedAt":0} trailing"#,
        #"{"id":"0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D","appID":"A","type":"\ud83d","clientUser":"u","receivedAt":0}"#,
        #"{"id":"0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D","appID":"A","type":"\x","clientUser":"u","receivedAt":0}"#,
        #"{"id":"0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D","appID":"A","type":"T","clientUser":"u","receivedAt":0,"payload":{"k":null}}"#,
        #"{"id":"0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D","appID":"A","type":"T","clientUser":"u","receivedAt":0,"payload":{"k":01x}}"#,
        #"{"id":"0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D","appID":"A","type":"T","clientUser":"u","receivedAt":-,"payload":{}}"#,
        #"{"id":"0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D","appID":"A","type":"T","clientUser":"u","receivedAt":0,}"#,
    ]

    @Test(arguments: invalidLines)
    func rejectsInvalidLines(_ line: String) {
        #expect(throws: EventJSONCodecError.self) {
            try EventJSONCodec.decode(Array(line.utf8))
        }
    }

    @Test func rejectsRawControlCharactersAndInvalidUTF8InStrings() {
        let prefix = Array(#"{"id":"0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D","appID":"A","type":""#.utf8)
        let suffix = Array(#"","clientUser":"u","receivedAt":0}"#.utf8)
        #expect(throws: Never.self) { try EventJSONCodec.decode(prefix + Array("ok".utf8) + suffix) }
        #expect(throws: EventJSONCodecError.self) { try EventJSONCodec.decode(prefix + [0x61, 0x0A, 0x62] + suffix) }
        #expect(throws: EventJSONCodecError.self) { try EventJSONCodec.decode(prefix + [0x61, 0xFF, 0x62] + suffix) }
        #expect(throws: EventJSONCodecError.self) { try EventJSONCodec.decode(prefix + [0xC3] + suffix) }
    }

    @Test func nullOptionalFieldsReadAsAbsent() throws {
        let text =
            #"{"id":"0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D","appID":"A","type":"T","clientUser":"u","#
            + #""receivedAt":"2024-06-15T14:00:00.133Z","sessionID":null,"payload":null,"floatValue":null,"#
            + #""isTestMode":null}"#
        let event = try EventJSONCodec.decode(Array(text.utf8))
        #expect(event.sessionID == nil)
        #expect(event.payload.isEmpty)
        #expect(event.floatValue == nil)
        #expect(event.isTestMode == "false")
        #expect(event.receivedAt == Date(timeIntervalSince1970: 1_718_460_000.133))
    }

    @Test func errorsNameTheProblemAndWhereItIs() {
        let missing = #"  {"appID":"A"}"#
        #expect(throws: EventJSONCodecError("missing id", offset: 2)) { try EventJSONCodec.decode(Array(missing.utf8)) }
        let badValue = #"{"id":"0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D","payload":{"k":[1]}}"#
        #expect(
            throws: EventJSONCodecError("payload value 'k' is not a string, number or boolean", offset: 60)
        ) { try EventJSONCodec.decode(Array(badValue.utf8)) }
    }

    @Test func eventsSharingMetadataEncodeTheirOwnMergedPayloads() throws {
        let first: [String: PayloadValue] = ["TelemetryDeck.Device.platform": "Linux", "screen": "shared", "n": 1]
        let second: [String: PayloadValue] = ["TelemetryDeck.Device.platform": "Darwin", "depth": 2.5]
        func event(_ shared: [String: PayloadValue], _ own: [String: PayloadValue]) -> Event {
            Event(
                appID: "A",
                type: "T",
                clientUser: "u",
                receivedAt: Date(timeIntervalSince1970: 1),
                sharedPayload: shared,
                ownPayload: own
            )
        }
        // Alternating layers, repeated layers (the cached fragment), a shadowing own key, an
        // empty own layer.
        let events = [
            event(first, ["a": true]), event(first, ["b": 2]), event(second, ["c": "x"]), event(first, [:]),
            event(first, ["screen": "own"]), event(second, [:]),
        ]
        for event in events {
            let decoded = try EventJSONCodec.decode(EventJSONCodec.encode(event))
            #expect(decoded.payload == event.payload)
            #expect(decoded == event)
        }
        #expect(try EventJSONCodec.decode(EventJSONCodec.encode(events[4])).payload["screen"] == "own")
        #expect(try EventJSONCodec.decode(EventJSONCodec.encode(events[3])).payload.count == 3)
    }
}
