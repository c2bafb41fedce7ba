#if Tools
import Testing
import TelemetryKit
import TelemetryKitCollector
import TelemetryKitHTTP
import TelemetryKitSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The collector over real HTTP on loopback.
@Suite struct CollectorTests {
    private let connection = URLSessionHTTPConnection()

    private func event(_ number: Int, payload: [String: PayloadValue] = ["screen": "home", "n": 1]) -> Event {
        Event(
            id: UUID(uuidString: "00000000-0000-4000-8000-" + String(String(number + 1_000_000_000_000).suffix(12)))
                ?? UUID(),
            appID: "APP",
            type: "Event.\(number)",
            clientUser: "user",
            receivedAt: Date(timeIntervalSince1970: Double(1_718_460_000_000 + Int64(number)) / 1000),
            payload: payload
        )
    }

    private func post(
        _ collector: Collector,
        body: [UInt8],
        path: String = "/v2/namespace/ns/",
        headers: [HTTPHeader] = [HTTPHeader("Content-Type", "application/json")]
    ) async throws -> HTTPResponse {
        let url = try #require(URL(string: collector.baseURL + path))
        return try await connection.send(HTTPRequest(url: url, headers: headers, body: Data(body), timeout: 30))
    }

    private func get(_ collector: Collector, _ path: String) async throws -> HTTPResponse {
        let url = try #require(URL(string: collector.baseURL + path))
        return try await connection.send(HTTPRequest(url: url, method: "GET", timeout: 30))
    }

    /// `event` as the TelemetryDeck form carries it, to compare with what the collector
    /// recorded: whole seconds and no id (the collector gives each event its own).
    private func asReceived(_ event: Event) -> Event {
        var received = event
        received.id = UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0))
        received.receivedAt = Date(timeIntervalSince1970: event.receivedAt.timeIntervalSince1970.rounded(.down))
        return received
    }

    private func withCollector(
        wireFormat: Collector.WireFormat = .telemetryDeck,
        _ body: (Collector) async throws -> Void
    ) async throws {
        let collector = try await Collector.start(Collector.Configuration(wireFormat: wireFormat))
        do {
            try await body(collector)
        } catch {
            await collector.shutdown()
            throw error
        }
        await collector.shutdown()
    }

    @Test func acceptsEncodedEventsAndRecordsThem() async throws {
        try await withCollector { collector in
            let events = [event(1), event(2, payload: ["ratio": 0.5, "flag": false, "big": .int(Int64.max)])]
            let response = try await post(collector, body: EventWireEncoder.encode(events))
            #expect(response.statusCode == 200)
            #expect(String(decoding: response.body, as: UTF8.self) == #"{"accepted":2,"new":2,"duplicates":0}"#)
            #expect(collector.events.map(asReceived) == events.map(asReceived))
            #expect(collector.requests.first?.namespace == "ns")
        }
    }

    @Test func acceptsTheFormWithEventIDsWhenConfiguredForIt() async throws {
        try await withCollector(wireFormat: .telemetryDeckWithEventIDs) { collector in
            let events = [event(1), event(2, payload: ["ratio": 0.5, "flag": false])]
            let response = try await post(
                collector,
                body: EventWireEncoder.encode(events, format: .telemetryDeckWithEventIDs)
            )
            #expect(response.statusCode == 200)
            #expect(collector.events.map(\.id) == events.map(\.id))
            #expect(collector.requests.first?.eventIDs == events.map(\.id))
            // The plain TelemetryDeck form lacks the ids this collector was told to expect.
            let plain = try await post(collector, body: EventWireEncoder.encode([event(3)]))
            #expect(plain.statusCode == 400)
            #expect(
                String(decoding: plain.body, as: UTF8.self)
                    == "Malformed body: at byte 1: event 0: member 'id' is missing"
            )
        }
    }

    /// A valid TelemetryDeck event; the table below puts a faulty one after it, so each reason
    /// must name event 1.
    static let valid =
        #"{"appID":"A","type":"T","clientUser":"u","receivedAt":"2024-01-01T00:00:00+0000","payload":{},"isTestMode":"false"}"#

    @Test(arguments: [
        (
            #"{"appID":"A","type":"T","clientUser":"u","receivedAt":"2024-01-01T00:00:00+0000","payload":{},"isTestMode":false}"#,
            #"at byte 224: event 1: member 'isTestMode' must be the string "true" or "false", not a JSON boolean"#
        ),
        (
            #"{"appID":"A","type":"T","clientUser":"u","receivedAt":"2024-01-01T00:00:00+0000","payload":{},"isTestMode":"yes"}"#,
            #"at byte 224: event 1: member 'isTestMode' must be the string "true" or "false", not "yes""#
        ),
        (
            #"{"appID":"A","type":"T","clientUser":"u","receivedAt":"2024-01-01T00:00:00.000Z","payload":{},"isTestMode":"false"}"#,
            #"at byte 171: event 1: member 'receivedAt' must be a string like 2026-11-23T19:33:43+0000 (yyyy-MM-dd'T'HH:mm:ssZ, no fraction), not "2024-01-01T00:00:00.000Z""#
        ),
        (
            #"{"appID":"A","type":"T","clientUser":"u","receivedAt":"2024-01-01T00:00:00Z","payload":{},"isTestMode":"false"}"#,
            #"at byte 171: event 1: member 'receivedAt' must be a string like 2026-11-23T19:33:43+0000 (yyyy-MM-dd'T'HH:mm:ssZ, no fraction), not "2024-01-01T00:00:00Z""#
        ),
        (
            #"{"appID":"A","type":"T","clientUser":"u","receivedAt":1704067200,"payload":{},"isTestMode":"false"}"#,
            #"at byte 171: event 1: member 'receivedAt' must be a string like 2026-11-23T19:33:43+0000 (yyyy-MM-dd'T'HH:mm:ssZ, no fraction), not a number"#
        ),
        (
            #"{"id":"00000000-0000-4000-8000-000000000001","appID":"A","type":"T","clientUser":"u","receivedAt":"2024-01-01T00:00:00+0000","payload":{},"isTestMode":"false"}"#,
            "at byte 118: event 1: unknown member 'id': the TelemetryDeck form has no event ids "
                + "(the collector takes them when configured with .telemetryDeckWithEventIDs)"
        ),
        (
            #"{"appID":"A","type":"T","clientUser":"u","receivedAt":"2024-01-01T00:00:00+0000","payload":{},"extra":1,"isTestMode":"false"}"#,
            "at byte 211: event 1: unknown member 'extra': the TelemetryDeck form has exactly "
                + "appID, type, clientUser, sessionID, receivedAt, payload, floatValue, isTestMode"
        ),
        (
            #"{"appID":"A","type":"T","type":"U","clientUser":"u","receivedAt":"2024-01-01T00:00:00+0000","payload":{},"isTestMode":"false"}"#,
            "at byte 141: event 1: member 'type' appears twice"
        ),
        (
            #"{"appID":"A","type":"T","clientUser":"u","receivedAt":"2024-01-01T00:00:00+0000","payload":{}}"#,
            "at byte 117: event 1: member 'isTestMode' is missing"
        ),
        (
            #"{"appID":"A","type":"T","clientUser":"u","receivedAt":"2024-01-01T00:00:00+0000","isTestMode":"false"}"#,
            "at byte 117: event 1: member 'payload' is missing"
        ),
        (
            #"{"appID":"A","type":"T","clientUser":"u","receivedAt":"2024-01-01T00:00:00+0000","payload":{"k":null},"isTestMode":"false"}"#,
            "at byte 213: event 1: member 'payload': the value of 'k' must be a string, number or boolean, not null"
        ),
        (
            #"{"appID":"A","type":"T","clientUser":"u","receivedAt":"2024-01-01T00:00:00+0000","payload":[],"isTestMode":"false"}"#,
            "at byte 208: event 1: member 'payload' must be an object, not an array"
        ),
        (
            #"{"appID":"","type":"T","clientUser":"u","receivedAt":"2024-01-01T00:00:00+0000","payload":{},"isTestMode":"false"}"#,
            "at byte 117: event 1: member 'appID' is empty"
        ),
        (
            #"{"appID":"A","type":"T","clientUser":"u","sessionID":7,"receivedAt":"2024-01-01T00:00:00+0000","payload":{},"isTestMode":"false"}"#,
            "at byte 170: event 1: member 'sessionID' must be a string, not a number"
        ),
        (
            #"{"appID":"A","type":"T","clientUser":"u","receivedAt":"2024-01-01T00:00:00+0000","payload":{},"floatValue":"1.5","isTestMode":"false"}"#,
            "at byte 224: event 1: member 'floatValue' must be a number, not a string"
        ),
    ])
    func eventsOutsideTheTelemetryDeckFormAreRefusedNamingEventAndMember(
        event: String,
        reason: String
    )
        async throws
    {
        try await withCollector { collector in
            let response = try await post(collector, body: Array("[\(Self.valid),\(event)]".utf8))
            #expect(response.statusCode == 400)
            #expect(String(decoding: response.body, as: UTF8.self) == "Malformed body: " + reason)
            #expect(collector.events.isEmpty)
            #expect(collector.requests.first?.status == 400)
        }
    }

    @Test(arguments: [
        ("2026-11-23T19:33:43+0000", 1_795_462_423.0),
        ("2026-11-23T20:33:43+0100", 1_795_462_423),
        ("2026-11-23T18:03:43-0130", 1_795_462_423),
        ("2000-02-29T00:00:00+0000", 951_782_400),
        ("1970-01-01T00:00:00+0000", 0),
    ])
    func readsTheServiceTimestampForm(text: String, seconds: Double) {
        #expect(ISO8601.date(fromSecondsTimestamp: text) == Date(timeIntervalSince1970: seconds))
    }

    @Test(arguments: [
        "2026-11-23T19:33:43Z", "2026-11-23T19:33:43.000+0000", "2026-11-23T19:33:43+00:00",
        "2026-11-23 19:33:43+0000", "2026-02-29T00:00:00+0000", "2026-13-01T00:00:00+0000",
        "2026-11-23T24:00:00+0000", "2026-11-23T19:33:60+0000", "2026-11-23T19:33:43 0000", "",
    ])
    func refusesOtherTimestampForms(text: String) {
        #expect(ISO8601.date(fromSecondsTimestamp: text) == nil)
    }

    @Test(arguments: [
        ("", "at byte 0: the body must be a JSON array of events (the body ends early)"),
        ("{}", "at byte 0: the body must be a JSON array of events"),
        ("[1]", "at byte 1: event 0 is not an object"),
        ("[{}]", "at byte 1: event 0: member 'appID' is missing"),
        ("[", "at byte 1: event 0 is not an object"),
        ("[] x", "at byte 3: unexpected data after the array"),
        (
            #"[{"appID":"A","type":"T\#u{1}\#u{1}","clientUser":"u"}]"#,
            "at byte 23: event 0: a control character inside a string"
        ),
        (#"[{"appID":"A","type":"\ud800","clientUser":"u"}]"#, "at byte 28: event 0: a lone high surrogate"),
        (#"[{"appID":"A","type":"T"]"#, "at byte 24: event 0: expected '}'"),
    ])
    func malformedBodiesAreRefusedWithAReason(body: String, reason: String) async throws {
        try await withCollector { collector in
            let response = try await post(collector, body: Array(body.utf8))
            #expect(response.statusCode == 400)
            let text = String(decoding: response.body, as: UTF8.self)
            #expect(text.hasPrefix("Malformed body: "))
            #expect(text.hasSuffix(reason))
            #expect(collector.events.isEmpty)
            #expect(collector.requests.first?.status == 400)
            #expect(collector.requests.first?.recorded == false)
        }
    }

    @Test func parsesEscapesSurrogatePairsAndWhitespace() async throws {
        try await withCollector { collector in
            let body = #"""
                [ {"appID":"A","type":"Tab\t\"q\" \u00e9\ud83d\ude80\/",
                   "clientUser":"u","sessionID":null,"receivedAt":"2024-01-01T00:00:00+0000",
                   "payload":{"i":-12,"d":2.5e3,"z":0,"b":true,"s":"x"},"floatValue":1E-2,"isTestMode":"true"} ]
                """#
            let response = try await post(collector, body: Array(body.utf8))
            #expect(response.statusCode == 200)
            let event = try #require(collector.events.first)
            #expect(event.type == "Tab\t\"q\" é🚀/")
            #expect(event.sessionID == nil)
            #expect(event.receivedAt == Date(timeIntervalSince1970: 1_704_067_200))
            #expect(
                event.payload == [
                    "i": .int(-12), "d": .double(2500), "z": .int(0), "b": .bool(true), "s": .string("x"),
                ]
            )
            #expect(event.floatValue == 0.01)
            #expect(event.isTestMode == "true")
        }
    }

    @Test func inflatesGzipBodies() async throws {
        try await withCollector { collector in
            let events = (0..<20).map { event($0) }
            let body = try Gzip.compress(EventWireEncoder.encode(events))
            let response = try await post(
                collector,
                body: body,
                headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Content-Encoding", "gzip")]
            )
            #expect(response.statusCode == 200)
            #expect(collector.eventCount == 20)
            #expect(collector.requests.first?.wasGzipped == true)
            #expect(collector.requests.first?.rawBodyByteCount == body.count)
        }
    }

    @Test func refusesBrokenGzip() async throws {
        try await withCollector { collector in
            let response = try await post(
                collector,
                body: Array("[not gzip]".utf8),
                headers: [HTTPHeader("Content-Type", "application/json"), HTTPHeader("Content-Encoding", "gzip")]
            )
            #expect(response.statusCode == 400)
            #expect(String(decoding: response.body, as: UTF8.self).contains("not valid gzip"))
        }
    }

    @Test func refusesOtherContentTypes() async throws {
        try await withCollector { collector in
            let response = try await post(
                collector,
                body: EventWireEncoder.encode([event(1)]),
                headers: [HTTPHeader("Content-Type", "text/plain")]
            )
            #expect(response.statusCode == 415)
            #expect(collector.events.isEmpty)
        }
    }

    @Test func routesByPathAndMethod() async throws {
        try await withCollector { collector in
            let response1 = try await post(collector, body: [], path: "/v1/other")

            #expect(response1.statusCode == 404)
            let response2 = try await get(collector, "/v2/namespace/ns/")

            #expect(response2.statusCode == 405)
            let response3 = try await get(collector, "/nothing-here")

            #expect(response3.statusCode == 404)
            let prefixed = try await post(
                collector,
                body: EventWireEncoder.encode([event(1)]),
                path: "/base/v2/namespace/x%20y/"
            )
            #expect(prefixed.statusCode == 200)
            #expect(collector.requests.first?.path == "/base/v2/namespace/x%20y/")
            #expect(collector.requests.first?.namespace == "x y")
        }
    }

    @Test func countsDuplicatesByIDWhenEventsCarryIDs() async throws {
        try await withCollector(wireFormat: .telemetryDeckWithEventIDs) { collector in
            let body = EventWireEncoder.encode([event(1), event(2)], format: .telemetryDeckWithEventIDs)
            _ = try await post(collector, body: body)
            let again = try await post(
                collector,
                body: EventWireEncoder.encode([event(2), event(3)], format: .telemetryDeckWithEventIDs)
            )
            #expect(String(decoding: again.body, as: UTF8.self) == #"{"accepted":2,"new":1,"duplicates":1}"#)
            #expect(collector.events.map(\.type) == ["Event.1", "Event.2", "Event.3"])
            #expect(collector.duplicateCount == 1)
            #expect(collector.receptionCount(of: event(2).id) == 2)
            #expect(collector.receptionCount(of: event(9).id) == 0)
        }
    }

    @Test func withoutIDsEveryReceivedEventIsNew() async throws {
        try await withCollector { collector in
            let body = EventWireEncoder.encode([event(1), event(2)])
            _ = try await post(collector, body: body)
            let again = try await post(collector, body: body)
            #expect(String(decoding: again.body, as: UTF8.self) == #"{"accepted":2,"new":2,"duplicates":0}"#)
            #expect(collector.events.map(\.type) == ["Event.1", "Event.2", "Event.1", "Event.2"])
            #expect(Set(collector.events.map(\.id)).count == 4)
            #expect(collector.duplicateCount == 0)
        }
    }

    @Test func servesEventsAsJSON() async throws {
        try await withCollector { collector in
            _ = try await post(collector, body: EventWireEncoder.encode([event(1), event(2), event(3)]))
            let all = try await get(collector, "/events")
            #expect(all.statusCode == 200)
            #expect(all.value(forHeader: "content-type") == "application/json")
            struct Document: Decodable {
                var received: Int
                var duplicates: Int
                var requests: Int
                var events: [Event]
            }
            let document = try JSONDecoder().decode(Document.self, from: all.body)
            #expect(document.received == 3)
            #expect(document.duplicates == 0)
            #expect(document.requests == 1)
            #expect(document.events.map(\.type) == ["Event.1", "Event.2", "Event.3"])
            let latest = try JSONDecoder().decode(Document.self, from: try await get(collector, "/events?limit=2").body)
            #expect(latest.events.map(\.type) == ["Event.2", "Event.3"])
        }
    }

    @Test func servesThePageThatDrawsItselfFromTheEvents() async throws {
        try await withCollector { collector in
            let page = try await get(collector, "/")
            #expect(page.statusCode == 200)
            #expect(page.value(forHeader: "content-type") == "text/html; charset=utf-8")
            #expect(page.value(forHeader: "cache-control") == "no-store")
            let html = String(decoding: page.body, as: UTF8.self)
            // It updates itself by asking for the events after the last it has; it never
            // reloads (which lost the reader's scroll position).
            #expect(!html.contains("http-equiv=\"refresh\""))
            #expect(html.contains(#""/events?since=" + next + "&limit=500""#))
            // Received text reaches the page only through textContent, never as markup.
            #expect(!html.contains("innerHTML"))
            #expect(!html.contains("insertAdjacentHTML"))
        }
    }

    @Test func scriptedFaultsAnswerRequestsInOrder() async throws {
        try await withCollector { collector in
            collector.script([.status(503, retryAfter: "4"), .status(500, body: "boom"), .accept])
            let body = EventWireEncoder.encode([event(1)])
            let first = try await post(collector, body: body)
            #expect(first.statusCode == 503)
            #expect(first.value(forHeader: "retry-after") == "4")
            let second = try await post(collector, body: body)
            #expect(second.statusCode == 500)
            #expect(String(decoding: second.body, as: UTF8.self) == "boom")
            #expect(collector.events.isEmpty)
            let response4 = try await post(collector, body: body)

            #expect(response4.statusCode == 200)
            #expect(collector.eventCount == 1)
            #expect(collector.requests.map(\.status) == [503, 500, 200])
            #expect(collector.requests.map(\.index) == [0, 1, 2])
            #expect(collector.pendingScript.isEmpty)
        }
    }

    @Test func closingMidResponseRecordsButLosesTheAnswer() async throws {
        try await withCollector { collector in
            collector.script([.closeMidResponse])
            await #expect(throws: (any Error).self) {
                try await post(collector, body: EventWireEncoder.encode([event(1)]))
            }
            #expect(collector.eventCount == 1)
            let request = try #require(collector.requests.first)
            #expect(request.answerLost)
            #expect(request.status == nil)
        }
    }

    @Test func answersTooLargeAboveTheBatchLimit() async throws {
        try await withCollector { collector in
            collector.setMaximumBatchSize(2)
            let response5 = try await post(collector, body: EventWireEncoder.encode([event(1), event(2), event(3)]))

            #expect(response5.statusCode == 413)
            let response6 = try await post(collector, body: EventWireEncoder.encode([event(1), event(2)]))

            #expect(response6.statusCode == 200)
            #expect(collector.eventCount == 2)
        }
    }

    @Test func randomFaultsAreReproducibleFromTheSeed() async throws {
        func statuses(seed: UInt64) async throws -> [Int?] {
            var result: [Int?] = []
            try await withCollector { collector in
                collector.setRandomFaults(RandomFaults(seed: seed, [(.status(500), 0.3), (.status(429), 0.2)]))
                for number in 0..<40 {
                    _ = try await post(collector, body: EventWireEncoder.encode([event(number)]))
                }
                result = collector.requests.map(\.status)
            }
            return result
        }
        let first = try await statuses(seed: 99)
        let second = try await statuses(seed: 99)
        #expect(first == second)
        #expect(first.contains(500))
        #expect(first.contains(429))
        #expect(first.contains(200))
        #expect(try await statuses(seed: 100) != first)
    }

    @Test func notifiesObserversOfNewEvents() async throws {
        try await withCollector(wireFormat: .telemetryDeckWithEventIDs) { collector in
            let seen = Locked([String]())
            collector.observe { events in seen.withLock { $0 += events.map(\.type) } }
            _ = try await post(
                collector,
                body: EventWireEncoder.encode([event(1), event(2)], format: .telemetryDeckWithEventIDs)
            )
            _ = try await post(collector, body: EventWireEncoder.encode([event(2)], format: .telemetryDeckWithEventIDs))
            #expect(seen.current == ["Event.1", "Event.2"])
        }
    }

    @Test func resetForgetsEventsButKeepsServing() async throws {
        try await withCollector { collector in
            _ = try await post(collector, body: EventWireEncoder.encode([event(1)]))
            collector.reset()
            #expect(collector.events.isEmpty)
            #expect(collector.requests.isEmpty)
            let response7 = try await post(collector, body: EventWireEncoder.encode([event(1)]))

            #expect(response7.statusCode == 200)
            #expect(collector.duplicateCount == 0)
        }
    }
}
#endif

#if Tools
/// The keep-alive faults, seen from a client that keeps its connection.
@Suite struct KeepAliveFaultTests {
    private func body(_ number: Int) -> [UInt8] {
        EventWireEncoder.encode([
            Event(appID: "APP", type: "Event.\(number)", clientUser: "user", receivedAt: Date(timeIntervalSince1970: 0))
        ])
    }

    @Test func withoutAFaultTheConnectionServesRequestAfterRequest() async throws {
        let collector = try await Collector.start()
        let connection = try RawHTTPConnection(port: collector.port)
        for number in 0..<3 {
            try await connection.post(body(number))
            #expect(try await connection.readStatus() == 200)
        }
        #expect(collector.requests.map(\.connection) == [0, 0, 0])
        await collector.shutdown()
    }

    @Test func closeWhenReusedDropsTheNextRequestOnTheConnectionUnanswered() async throws {
        let collector = try await Collector.start()
        collector.script([.closeWhenReused])
        let connection = try RawHTTPConnection(port: collector.port)
        try await connection.post(body(1))
        #expect(try await connection.readStatus() == 200)
        try await connection.post(body(2))
        #expect(try await connection.readStatus() == nil)
        #expect(collector.requests.map(\.status) == [200])
        #expect(collector.events.map(\.type) == ["Event.1"])
        // A new connection is served as usual.
        let another = try RawHTTPConnection(port: collector.port)
        try await another.post(body(2))
        #expect(try await another.readStatus() == 200)
        #expect(collector.requests.map(\.connection) == [0, 1])
        await collector.shutdown()
    }

    @Test func closeWhenIdleClosesTheConnectionAfterTheIdleTime() async throws {
        let collector = try await Collector.start()
        collector.script([.closeWhenIdle(after: 0.05)])
        let connection = try RawHTTPConnection(port: collector.port)
        try await connection.post(body(1))
        #expect(try await connection.readStatus() == 200)
        // Nothing sent: the end of the stream is the server's close.
        #expect(try await connection.readStatus() == nil)
        #expect(collector.requests.map(\.status) == [200])
        await collector.shutdown()
    }

    @Test func closeWhenIdleIsCancelledByARequestInTime() async throws {
        let collector = try await Collector.start()
        collector.script([.closeWhenIdle(after: 5)])
        let connection = try RawHTTPConnection(port: collector.port)
        try await connection.post(body(1))
        #expect(try await connection.readStatus() == 200)
        try await connection.post(body(2))
        #expect(try await connection.readStatus() == 200)
        #expect(collector.requests.map(\.connection) == [0, 0])
        #expect(collector.requests.map(\.fault) == [.closeWhenIdle(after: 5), nil])
        await collector.shutdown()
    }
}
#endif
