import Foundation
import TelemetryKit
import TelemetryKitHTTP
import TelemetryKitSupport
import Testing

/// Golden bodies: fixed events and the exact bytes TelemetryDeck's service must receive for
/// them, checked with a decoder built like the service's.
struct TelemetryDeckWireTests {
    static let appID = "4F5A1C2D-7B3E-4E5F-9A8B-1C2D3E4F5A6B"
    static let user = "b4c9a289323b21a01c3e940f150eb9b8c542587f1abfd8f0e1cc1ffc5e475514"
    static let session = "0F7E2A4C-9D1B-4C3E-8F5A-6B2D1E0C9A87"
    /// A type with characters JSON must escape: quotes, a backslash, a tab, a newline, U+0001.
    static let trickyType = "Quote \"q\" back\\slash\ttab\nline\u{1}"

    static func id(_ number: Int) -> UUID {
        UUID(uuidString: "00000000-0000-4000-8000-00000000000\(number)")!
    }

    /// 2026-11-23T19:33:43.456Z and the seconds after it.
    static func date(_ secondsAfter: Double) -> Date {
        Date(timeIntervalSince1970: 1_795_462_423.456 + secondsAfter)
    }

    static let events: [Event] = [
        Event(
            id: id(1),
            appID: appID,
            type: "Screen.shown",
            clientUser: user,
            sessionID: session,
            receivedAt: date(0),
            payload: ["screen": "home"],
            floatValue: 1.5,
            isTestMode: false
        ),
        Event(
            id: id(2),
            appID: appID,
            type: "Purchase.completed",
            clientUser: user,
            sessionID: nil,
            receivedAt: date(1.543),
            payload: ["items": 3],
            floatValue: nil,
            isTestMode: true
        ),
        Event(
            id: id(3),
            appID: appID,
            type: "Ratio.measured",
            clientUser: user,
            sessionID: session,
            receivedAt: date(2),
            payload: ["ratio": 0.25],
            floatValue: -2,
            isTestMode: false
        ),
        Event(
            id: id(4),
            appID: appID,
            type: trickyType,
            clientUser: user,
            sessionID: nil,
            receivedAt: date(3),
            payload: ["note": "Grüße \"x\"\n"],
            floatValue: .nan,
            isTestMode: true
        ),
        Event(
            id: id(5),
            appID: appID,
            type: "Upgrade.offered",
            clientUser: user,
            sessionID: session,
            receivedAt: date(4),
            payload: ["isPro": false],
            floatValue: 0.1,
            isTestMode: false
        ),
        Event(
            id: id(6),
            appID: appID,
            type: "App.launched",
            clientUser: user,
            sessionID: session,
            receivedAt: date(5),
            payload: [:],
            floatValue: nil,
            isTestMode: false
        ),
    ]

    /// The body of ``events``, byte for byte.
    static let telemetryDeckBody = [
        #"[{"appID":"4F5A1C2D-7B3E-4E5F-9A8B-1C2D3E4F5A6B","type":"Screen.shown","#,
        #""clientUser":"b4c9a289323b21a01c3e940f150eb9b8c542587f1abfd8f0e1cc1ffc5e475514","#,
        #""sessionID":"0F7E2A4C-9D1B-4C3E-8F5A-6B2D1E0C9A87","receivedAt":"2026-11-23T19:33:43+0000","#,
        #""payload":{"screen":"home"},"floatValue":1.5,"isTestMode":"false"},"#,
        #"{"appID":"4F5A1C2D-7B3E-4E5F-9A8B-1C2D3E4F5A6B","type":"Purchase.completed","#,
        #""clientUser":"b4c9a289323b21a01c3e940f150eb9b8c542587f1abfd8f0e1cc1ffc5e475514","#,
        #""receivedAt":"2026-11-23T19:33:44+0000","payload":{"items":3},"isTestMode":"true"},"#,
        #"{"appID":"4F5A1C2D-7B3E-4E5F-9A8B-1C2D3E4F5A6B","type":"Ratio.measured","#,
        #""clientUser":"b4c9a289323b21a01c3e940f150eb9b8c542587f1abfd8f0e1cc1ffc5e475514","#,
        #""sessionID":"0F7E2A4C-9D1B-4C3E-8F5A-6B2D1E0C9A87","receivedAt":"2026-11-23T19:33:45+0000","#,
        #""payload":{"ratio":0.25},"floatValue":-2.0,"isTestMode":"false"},"#,
        #"{"appID":"4F5A1C2D-7B3E-4E5F-9A8B-1C2D3E4F5A6B","type":"Quote \"q\" back\\slash\ttab\nline\u0001","#,
        #""clientUser":"b4c9a289323b21a01c3e940f150eb9b8c542587f1abfd8f0e1cc1ffc5e475514","#,
        #""receivedAt":"2026-11-23T19:33:46+0000","payload":{"note":"Grüße \"x\"\n"},"isTestMode":"true"},"#,
        #"{"appID":"4F5A1C2D-7B3E-4E5F-9A8B-1C2D3E4F5A6B","type":"Upgrade.offered","#,
        #""clientUser":"b4c9a289323b21a01c3e940f150eb9b8c542587f1abfd8f0e1cc1ffc5e475514","#,
        #""sessionID":"0F7E2A4C-9D1B-4C3E-8F5A-6B2D1E0C9A87","receivedAt":"2026-11-23T19:33:47+0000","#,
        #""payload":{"isPro":false},"floatValue":0.1,"isTestMode":"false"},"#,
        #"{"appID":"4F5A1C2D-7B3E-4E5F-9A8B-1C2D3E4F5A6B","type":"App.launched","#,
        #""clientUser":"b4c9a289323b21a01c3e940f150eb9b8c542587f1abfd8f0e1cc1ffc5e475514","#,
        #""sessionID":"0F7E2A4C-9D1B-4C3E-8F5A-6B2D1E0C9A87","receivedAt":"2026-11-23T19:33:48+0000","#,
        #""payload":{},"isTestMode":"false"}]"#,
    ].joined()

    /// What the service reads from ``telemetryDeckBody``, member by member.
    static let serviceEvents: [ServiceEvent] = [
        ServiceEvent(
            appID: appID,
            type: "Screen.shown",
            clientUser: user,
            sessionID: session,
            receivedAt: Date(timeIntervalSince1970: 1_795_462_423),
            payload: ["screen": .string("home")],
            floatValue: 1.5,
            isTestMode: "false"
        ),
        ServiceEvent(
            appID: appID,
            type: "Purchase.completed",
            clientUser: user,
            sessionID: nil,
            receivedAt: Date(timeIntervalSince1970: 1_795_462_424),
            payload: ["items": .number(3)],
            floatValue: nil,
            isTestMode: "true"
        ),
        ServiceEvent(
            appID: appID,
            type: "Ratio.measured",
            clientUser: user,
            sessionID: session,
            receivedAt: Date(timeIntervalSince1970: 1_795_462_425),
            payload: ["ratio": .number(0.25)],
            floatValue: -2,
            isTestMode: "false"
        ),
        ServiceEvent(
            appID: appID,
            type: trickyType,
            clientUser: user,
            sessionID: nil,
            receivedAt: Date(timeIntervalSince1970: 1_795_462_426),
            payload: ["note": .string("Grüße \"x\"\n")],
            floatValue: nil,
            isTestMode: "true"
        ),
        ServiceEvent(
            appID: appID,
            type: "Upgrade.offered",
            clientUser: user,
            sessionID: session,
            receivedAt: Date(timeIntervalSince1970: 1_795_462_427),
            payload: ["isPro": .bool(false)],
            floatValue: 0.1,
            isTestMode: "false"
        ),
        ServiceEvent(
            appID: appID,
            type: "App.launched",
            clientUser: user,
            sessionID: session,
            receivedAt: Date(timeIntervalSince1970: 1_795_462_428),
            payload: [:],
            floatValue: nil,
            isTestMode: "false"
        ),
    ]

    // MARK: Bytes

    @Test func theTelemetryDeckBodyIsByteExact() {
        #expect(String(decoding: EventWireEncoder.encode(Self.events), as: UTF8.self) == Self.telemetryDeckBody)
    }

    @Test func theDefaultTransmitterSendsTheTelemetryDeckBody() throws {
        let transmitter = try HTTPEventTransmitter(configuration: .init(namespace: "ns"))
        #expect(transmitter.configuration.wireFormat == .telemetryDeck)
        let request = transmitter.makeRequest(for: Self.events)
        #expect(String(decoding: request.body, as: UTF8.self) == Self.telemetryDeckBody)
    }

    @Test func theFormWithEventIDsAddsALeadingIDAndNothingElse() {
        let body = EventWireEncoder.encode(Array(Self.events.prefix(2)), format: .telemetryDeckWithEventIDs)
        let expected = [
            #"[{"id":"00000000-0000-4000-8000-000000000001","#,
            #""appID":"4F5A1C2D-7B3E-4E5F-9A8B-1C2D3E4F5A6B","type":"Screen.shown","#,
            #""clientUser":"b4c9a289323b21a01c3e940f150eb9b8c542587f1abfd8f0e1cc1ffc5e475514","#,
            #""sessionID":"0F7E2A4C-9D1B-4C3E-8F5A-6B2D1E0C9A87","receivedAt":"2026-11-23T19:33:43+0000","#,
            #""payload":{"screen":"home"},"floatValue":1.5,"isTestMode":"false"},"#,
            #"{"id":"00000000-0000-4000-8000-000000000002","#,
            #""appID":"4F5A1C2D-7B3E-4E5F-9A8B-1C2D3E4F5A6B","type":"Purchase.completed","#,
            #""clientUser":"b4c9a289323b21a01c3e940f150eb9b8c542587f1abfd8f0e1cc1ffc5e475514","#,
            #""receivedAt":"2026-11-23T19:33:44+0000","payload":{"items":3},"isTestMode":"true"}]"#,
        ].joined()
        #expect(String(decoding: body, as: UTF8.self) == expected)
    }

    @Test func aPayloadWithSeveralKeysIsCommaSeparated() {
        let event = Event(
            id: Self.id(7),
            appID: "A",
            type: "T",
            clientUser: "u",
            receivedAt: Date(timeIntervalSince1970: 0),
            payload: ["a": 1, "b": "x"],
            isTestMode: false
        )
        let body = String(decoding: EventWireEncoder.encode([event]), as: UTF8.self)
        // The payload's key order is the dictionary's: either is exact.
        let head = #"[{"appID":"A","type":"T","clientUser":"u","receivedAt":"1970-01-01T00:00:00+0000","payload":"#
        let tail = #","isTestMode":"false"}]"#
        #expect([head + #"{"a":1,"b":"x"}"# + tail, head + #"{"b":"x","a":1}"# + tail].contains(body))
    }

    @Test(arguments: [
        (1_795_462_423.456, "2026-11-23T19:33:43+0000"),
        (1_795_462_423.999, "2026-11-23T19:33:43+0000"),
        (0, "1970-01-01T00:00:00+0000"),
        (-0.5, "1969-12-31T23:59:59+0000"),
        (951_782_400, "2000-02-29T00:00:00+0000"),
        (253_402_300_799, "9999-12-31T23:59:59+0000"),
    ])
    func receivedAtIsWholeSecondsInUTC(seconds: Double, expected: String) {
        let event = Event(
            id: Self.id(8),
            appID: "A",
            type: "T",
            clientUser: "u",
            receivedAt: Date(timeIntervalSince1970: seconds)
        )
        let body = String(decoding: EventWireEncoder.encode([event]), as: UTF8.self)
        #expect(
            body == #"[{"appID":"A","type":"T","clientUser":"u","receivedAt":"\#(expected)","#
                + #""payload":{},"isTestMode":"false"}]"#
        )
    }

    // MARK: The service's decoder

    @Test func theGoldenBodyDecodesLikeTheService() throws {
        #expect(try ServiceEvent.decodeBody(Array(Self.telemetryDeckBody.utf8)) == Self.serviceEvents)
    }

    /// The form sent before (a boolean `isTestMode`, milliseconds, an `id` member) and each of
    /// its differences alone: the service's decoder refuses every one.
    @Test(arguments: [
        ("a JSON boolean isTestMode", #""isTestMode":"false"}"#, #""isTestMode":false}"#),
        ("fractional seconds", #""2026-11-23T19:33:43+0000""#, #""2026-11-23T19:33:43.456Z""#),
        ("an id member", #"[{"appID""#, #"[{"id":"00000000-0000-4000-8000-000000000001","appID""#),
        ("isTestMode neither true nor false", #""isTestMode":"true"}"#, #""isTestMode":"yes"}"#),
        ("a null payload value", #"{"screen":"home"}"#, #"{"screen":null}"#),
    ])
    func theServiceDecoderRefuses(_ what: String, replacing original: String, with replacement: String) throws {
        let body = Self.telemetryDeckBody.replacingOccurrences(of: original, with: replacement)
        try #require(body != Self.telemetryDeckBody, "the replacement for \(what) did not apply")
        #expect(throws: DecodingError.self, "\(what)") { try ServiceEvent.decodeBody(Array(body.utf8)) }
    }

    @Test func theServiceDecoderRefusesTheOldForm() throws {
        // The cache form is what every request carried before: it must not reach the service.
        var old: [UInt8] = Array("[".utf8)
        EventJSONCodec.encode(Self.events[0], into: &old)
        old.append(UInt8(ascii: "]"))
        let text = String(decoding: old, as: UTF8.self)
        #expect(text.contains(#""isTestMode":false"#))
        #expect(text.contains(#""receivedAt":"2026-11-23T19:33:43.456Z""#))
        #expect(throws: DecodingError.self) { try ServiceEvent.decodeBody(old) }
        #expect(throws: DecodingError.self) {
            try ServiceEvent.decodeBody(EventWireEncoder.encode(Self.events, format: .telemetryDeckWithEventIDs))
        }
    }

    @Test func realisticBatchesDecodeLikeTheService() throws {
        let layered = Event(
            id: Self.id(9),
            appID: Self.appID,
            type: "Layered",
            clientUser: Self.user,
            receivedAt: Self.date(9),
            sharedPayload: ["screen": "shared", "TelemetryDeck.Device.platform": "Linux"],
            ownPayload: ["screen": "own", "count": 2]
        )
        let events =
            (0..<20).map { Fixtures.event(number: $0, payload: Fixtures.defaultProcessorsPayload) } + [
                layered,
                Fixtures.event(
                    number: 30,
                    payload: ["nan": .double(.nan), "big": .int(Int64.max)],
                    floatValue: .infinity
                ),
            ]
        let decoded = try ServiceEvent.decodeBody(EventWireEncoder.encode(events))
        #expect(decoded == events.map(ServiceEvent.init(expecting:)))
        #expect(
            decoded[20].payload == [
                "screen": .string("own"), "TelemetryDeck.Device.platform": .string("Linux"),
                "count": .number(2),
            ]
        )
        #expect(decoded[21].payload["nan"] == .string("NaN"))
        #expect(decoded[21].floatValue == nil)
    }
}
