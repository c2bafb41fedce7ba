#if Tools
import Testing
import TelemetryKit
import TelemetryKitCollector
import TelemetryKitHTTP
import TelemetryKitSupport

import Foundation

/// What the page and `collect` read: `GET /events` in pages, the running counts, the kept
/// window of events and requests, and the rejected requests.
@Suite struct CollectorLiveDataTests {
    private let connection = URLSessionHTTPConnection()

    private func event(_ type: String, payload: [String: PayloadValue] = ["screen": "home"]) -> Event {
        Event(
            appID: "APP",
            type: type,
            clientUser: "user",
            receivedAt: Date(timeIntervalSince1970: 1_795_462_423),
            payload: payload
        )
    }

    private func post(
        _ collector: Collector,
        _ body: [UInt8],
        contentType: String = "application/json"
    ) async throws
        -> HTTPResponse
    {
        let url = try #require(URL(string: collector.baseURL + "/v2/namespace/ns/"))
        return try await connection.send(
            HTTPRequest(url: url, headers: [HTTPHeader("Content-Type", contentType)], body: Data(body), timeout: 30)
        )
    }

    private struct Document: Decodable {
        struct Numbered: Decodable {
            var number: Int
            var type: String
        }
        struct Minute: Decodable {
            var minute: Int
            var counts: [String: Int]
        }
        struct Rejected: Decodable {
            var status: Int
            var path: String
            var reason: String
            var eventIndex: Int?
            var member: String?
            var event: String?
        }
        var received: Int
        var requests: Int
        var rejected: Int
        var first: Int
        var next: Int
        var types: [String: Int]
        var now: Int
        var minutes: [Minute]
        var rejections: [Rejected]
        var events: [Numbered]
    }

    private func document(_ collector: Collector, _ query: String) async throws -> Document {
        let url = try #require(URL(string: collector.baseURL + "/events" + query))
        let response = try await connection.send(HTTPRequest(url: url, method: "GET", timeout: 30))
        #expect(response.statusCode == 200)
        return try JSONDecoder().decode(Document.self, from: response.body)
    }

    @Test func eventsArePagedBySinceAndLimit() async throws {
        let collector = try await Collector.start()
        _ = try await post(collector, EventWireEncoder.encode((1...5).map { event("Event.\($0)") }))

        let latest = try await document(collector, "?limit=2")
        let afterTwo = try await document(collector, "?since=2&limit=2")
        let rest = try await document(collector, "?since=\(afterTwo.next)")
        let none = try await document(collector, "?since=5")
        let url = try #require(URL(string: collector.baseURL + "/events?since=-1"))
        let invalid = try await connection.send(HTTPRequest(url: url, method: "GET", timeout: 30))
        await collector.shutdown()

        #expect(latest.events.map(\.type) == ["Event.4", "Event.5"])
        #expect(latest.events.map(\.number) == [4, 5])
        #expect(afterTwo.events.map(\.type) == ["Event.3", "Event.4"])
        #expect(afterTwo.next == 4)
        #expect(rest.events.map(\.type) == ["Event.5"])
        #expect(rest.next == 5)
        #expect(none.events.isEmpty)
        #expect(none.next == 5)
        #expect(invalid.statusCode == 400)
        #expect(String(decoding: invalid.body, as: UTF8.self) == "since and limit must be whole numbers of at least 0.")
    }

    @Test func keepsTheLatestEventsAndRequestsAndCountsEverything() async throws {
        let collector = try await Collector.start(
            Collector.Configuration(retention: .latest(events: 3, requests: 2))
        )
        for type in ["A", "B", "A", "C", "A"] {
            _ = try await post(collector, EventWireEncoder.encode([event(type)]))
        }
        let all = try await document(collector, "?since=0")
        await collector.shutdown()

        #expect(collector.events.map(\.type) == ["A", "C", "A"])
        #expect(collector.eventCount == 5)
        #expect(collector.requests.map(\.index) == [3, 4])
        #expect(collector.requestCount == 5)
        #expect(collector.countsByType == ["A": 3, "B": 1, "C": 1])
        #expect(all.first == 3)
        #expect(all.events.map(\.number) == [3, 4, 5])
        #expect(all.received == 5)
        #expect(all.requests == 5)
        #expect(all.types == ["A": 3, "B": 1, "C": 1])
        // All five arrived within this minute (or the one before, should it have turned).
        let recent = all.minutes.filter { $0.minute >= all.now - 1 }
        let charted = recent.flatMap { Array($0.counts.values) }.reduce(0, +)
        #expect(charted == 5)
    }

    @Test func rejectionsNameTheStatusReasonEventAndMember() async throws {
        let collector = try await Collector.start()
        let seen = Locked([Int]())
        collector.observeRejections { rejection in seen.withLock { $0.append(rejection.status) } }
        let good = String(decoding: EventWireEncoder.encode([event("Good")]), as: UTF8.self).dropFirst().dropLast()
        let bad = good.replacingOccurrences(of: #""isTestMode":"false""#, with: #""isTestMode":"no""#)
        let refused = try await post(collector, Array("[\(good),\(bad)]".utf8))
        let wrongType = try await post(collector, EventWireEncoder.encode([event("Good")]), contentType: "text/plain")
        let accepted = try await post(collector, EventWireEncoder.encode([event("Good")]))
        let listed = try await document(collector, "")
        await collector.shutdown()

        #expect(refused.statusCode == 400)
        #expect(wrongType.statusCode == 415)
        #expect(accepted.statusCode == 200)
        #expect(seen.current == [400, 415])
        #expect(collector.rejectedCount == 2)
        let first = try #require(collector.rejections.first)
        #expect(first.status == 400)
        #expect(first.path == "/v2/namespace/ns/")
        #expect(
            first.reason
                == #"Malformed body: at byte \#(good.utf8.count + 2 + bad.utf8.count - 5): event 1: "#
                + #"member 'isTestMode' must be the string "true" or "false", not "no""#
        )
        #expect(first.eventIndex == 1)
        #expect(first.member == "isTestMode")
        #expect(first.event == bad)
        let second = try #require(collector.rejections.last)
        #expect(second.reason == "Content-Type must be application/json, not text/plain.")
        #expect(second.eventIndex == nil)
        #expect(second.member == nil)
        #expect(second.event == nil)
        #expect(listed.rejected == 2)
        #expect(listed.rejections.map(\.status) == [415, 400])
        #expect(listed.rejections.last?.member == "isTestMode")
        #expect(listed.rejections.last?.event == bad)
        #expect(listed.received == 1)
    }

    @Test func aBodyTooLargeIsARejection() async throws {
        let collector = try await Collector.start(Collector.Configuration(maximumBodyBytes: 100))
        let response = try await post(collector, EventWireEncoder.encode((0..<5).map { event("Event.\($0)") }))
        await collector.shutdown()

        #expect(response.statusCode == 413)
        #expect(collector.rejections.map(\.reason) == ["The body exceeds 100 bytes."])
        #expect(collector.rejections.map(\.status) == [413])
    }
}
#endif
