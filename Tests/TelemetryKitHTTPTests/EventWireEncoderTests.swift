import TelemetryKit
import TelemetryKitHTTP
import TelemetryKitSupport
import TelemetryKitTransformations
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct EventWireEncoderTests {
    private func decode(_ bytes: [UInt8]) throws -> [ServiceEvent] {
        try ServiceEvent.decodeBody(bytes)
    }

    @Test func roundTripsThroughTheServiceDecoder() throws {
        let events = [
            Fixtures.event(number: 1),
            Fixtures.event(number: 2, sessionID: nil, floatValue: nil, isTestMode: true),
            Fixtures.event(number: 3, payload: Fixtures.defaultProcessorsPayload),
            Fixtures.event(number: 4, payload: [:]),
        ]
        let decoded = try decode(EventWireEncoder.encode(events))
        #expect(decoded == events.map(ServiceEvent.init(expecting:)))
    }

    @Test func encodesTheMergedViewOfALayeredPayload() throws {
        var event = Fixtures.event(number: 5, payload: [:])
        event = Event(
            id: event.id,
            appID: event.appID,
            type: event.type,
            clientUser: event.clientUser,
            receivedAt: event.receivedAt,
            sharedPayload: ["screen": "shared", "TelemetryDeck.Device.platform": "Linux"],
            ownPayload: ["screen": "own", "count": 2]
        )
        let object = try #require(JSONValue.parse(EventWireEncoder.encode([event])).arrayValue?.first?.objectValue)
        #expect(
            object["payload"]
                == .object([
                    "screen": .string("own"), "TelemetryDeck.Device.platform": .string("Linux"), "count": .int(2),
                ])
        )
    }

    @Test(arguments: EventWireFormat.allCases)
    func encodesAnEmptyBatchAsAnEmptyArray(format: EventWireFormat) {
        #expect(EventWireEncoder.encode([], format: format) == Array("[]".utf8))
    }

    @Test func writesTheTelemetryDeckMembersWithTheirJSONTypes() throws {
        let event = Fixtures.event(number: 10)
        let object = try #require(JSONValue.parse(EventWireEncoder.encode([event])).arrayValue?.first?.objectValue)
        #expect(
            Set(object.keys) == [
                "appID", "type", "clientUser", "sessionID", "receivedAt", "payload", "floatValue", "isTestMode",
            ]
        )
        #expect(object["appID"] == .string("APP-ID"))
        #expect(object["type"] == .string("Screen.shown"))
        #expect(object["clientUser"] == .string(SHA256Hex.digest("user-10")))
        #expect(object["sessionID"] == .string("0F7E2A4C-9D1B-4C3E-8F5A-6B2D1E0C9A87"))
        #expect(object["receivedAt"] == .string("2024-06-15T14:00:00+0000"))
        #expect(object["floatValue"] == .double(1.5))
        #expect(object["isTestMode"] == .string("false"))
        #expect(
            object["payload"]
                == .object([
                    "screen": .string("home"), "count": .int(3), "ratio": .double(0.25), "isPro": .bool(true),
                ])
        )
    }

    @Test func theFormWithEventIDsIsTheTelemetryDeckFormPlusTheID() throws {
        let events = [Fixtures.event(number: 11), Fixtures.event(number: 12, sessionID: nil, isTestMode: true)]
        let plain = try #require(JSONValue.parse(EventWireEncoder.encode(events)).arrayValue)
        let withIDs = try #require(
            JSONValue.parse(EventWireEncoder.encode(events, format: .telemetryDeckWithEventIDs)).arrayValue
        )
        #expect(
            withIDs.map { $0.objectValue?["id"] } == [
                .string("00000000-0000-4000-8000-00000000000B"), .string("00000000-0000-4000-8000-00000000000C"),
            ]
        )
        #expect(withIDs.map { $0.objectValue?.filter { $0.key != "id" } } == plain.map(\.objectValue))
    }

    @Test func omitsAbsentSessionAndFloatValue() throws {
        let event = Fixtures.event(sessionID: nil, floatValue: nil)
        let object = try #require(JSONValue.parse(EventWireEncoder.encode([event])).arrayValue?.first?.objectValue)
        #expect(object["sessionID"] == nil)
        #expect(object["floatValue"] == nil)
        #expect(object.count == 6)
    }

    @Test func escapesQuotesBackslashesAndEveryControlCharacter() throws {
        var control = ""
        for value in 0..<0x20 {
            control.unicodeScalars.append(Unicode.Scalar(UInt8(value)))
        }
        let tricky = "quote \" backslash \\ slash / tab\t newline\n" + control + "\u{7F}"
        let event = Fixtures.event(type: tricky, payload: [tricky: .string(tricky)])
        let bytes = EventWireEncoder.encode([event])
        // No raw control character may appear inside the JSON text.
        #expect(!bytes.contains { $0 < 0x20 })
        #expect(String(decoding: bytes, as: UTF8.self).contains(#"\u0000\u0001"#))
        let decoded = try decode(bytes)
        #expect(decoded.first?.type == tricky)
        #expect(decoded.first?.payload[tricky] == .string(tricky))
    }

    @Test func keepsNonASCIITextAsUTF8() throws {
        let text = "Grüße, 東京 🚀 é"
        let event = Fixtures.event(type: text, payload: ["city": .string(text)])
        let bytes = EventWireEncoder.encode([event])
        #expect(String(decoding: bytes, as: UTF8.self).contains(text))
        #expect(try decode(bytes) == [ServiceEvent(expecting: event)])
    }

    @Test(arguments: [
        (Double.nan, "NaN"), (Double.infinity, "Infinity"), (-Double.infinity, "-Infinity"),
    ])
    func writesNonFinitePayloadNumbersAsStrings(value: Double, expected: String) throws {
        let event = Fixtures.event(payload: ["value": .double(value)], floatValue: value)
        let bytes = EventWireEncoder.encode([event])
        let object = try #require(JSONValue.parse(bytes).arrayValue?.first?.objectValue)
        #expect(object["payload"] == .object(["value": .string(expected)]))
        #expect(object["floatValue"] == nil)
    }

    @Test(arguments: [
        (Int64.min, "-9223372036854775808"), (-1, "-1"), (0, "0"), (7, "7"), (10, "10"),
        (1_234_567_890, "1234567890"), (Int64.max, "9223372036854775807"),
    ])
    func writesIntegersExactly(value: Int64, expected: String) throws {
        let event = Fixtures.event(payload: ["n": .int(value)])
        let body = String(decoding: EventWireEncoder.encode([event]), as: UTF8.self)
        #expect(body.contains(#""payload":{"n":\#(expected)}"#))
    }

    @Test(arguments: [
        0.1, -2.5, 1e-5, 1.7976931348623157e308, Double.leastNonzeroMagnitude, 123_456.789, -0.001,
    ])
    func writesDoublesThatRoundTrip(value: Double) throws {
        let event = Fixtures.event(payload: ["x": .double(value)], floatValue: value)
        let decoded = try #require(try decode(EventWireEncoder.encode([event])).first)
        #expect(decoded.payload["x"] == .number(value))
        #expect(decoded.floatValue == value)
    }
}
