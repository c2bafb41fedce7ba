#if Tools
import Testing
import TelemetryKit
import TelemetryKitTrackingPlan
import TelemetryKitTypedEvents
import TelemetryKitCollector
import TelemetryKitHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `telemetrykit collect --plan`: the collector checks received events against a tracking
/// plan, over real HTTP on loopback.
@Suite struct CollectorTrackingPlanTests {
    private let connection = URLSessionHTTPConnection()
    private let plan = TrackingPlan(events: [
        EventSchema(
            name: "Checkout.completed",
            parameters: [
                EventSchema.Parameter(key: "items", type: .int),
                EventSchema.Parameter(key: "coupon", type: .string, isOptional: true),
            ],
            floatValue: EventSchema.FloatValue()
        )
    ])

    private func event(_ type: String, payload: [String: PayloadValue], floatValue: Double?) -> Event {
        Event(
            appID: "APP",
            type: type,
            clientUser: "user",
            receivedAt: Date(timeIntervalSince1970: 1_718_460_000),
            payload: payload,
            floatValue: floatValue
        )
    }

    private func request(
        _ collector: Collector,
        _ method: String,
        _ path: String,
        body: [UInt8] = []
    ) async throws
        -> HTTPResponse
    {
        let url = try #require(URL(string: collector.baseURL + path))
        return try await connection.send(
            HTTPRequest(
                url: url,
                method: method,
                headers: method == "POST" ? [HTTPHeader("Content-Type", "application/json")] : [],
                body: Data(body),
                timeout: 10
            )
        )
    }

    @Test func marksViolatingEventsInEvents() async throws {
        let collector = try await Collector.start(Collector.Configuration(trackingPlan: plan))
        let body = EventWireEncoder.encode([
            event(
                "Checkout.completed",
                payload: ["items": 3, "TelemetryDeck.Device.platform": "Linux"],
                floatValue: 9.5
            ),
            event("Checkout.completed", payload: ["items": "3"], floatValue: 9.5),
            event("Checkout.complete", payload: [:], floatValue: nil),
        ])

        let posted = try await request(collector, "POST", "/v2/namespace/ns/", body: body)
        #expect(posted.statusCode == 200)

        struct Document: Decodable {
            struct Recorded: Decodable {
                var type: String
                var payload: [String: PayloadValue]
                var floatValue: Double?
                var planViolations: [String]
            }
            var received: Int
            var planViolations: Int
            var events: [Recorded]
        }
        let document = try JSONDecoder().decode(
            Document.self,
            from: try await request(collector, "GET", "/events").body
        )
        #expect(document.received == 3)
        #expect(document.planViolations == 2)
        #expect(document.events.map(\.type) == ["Checkout.completed", "Checkout.completed", "Checkout.complete"])
        #expect(
            document.events.map(\.planViolations) == [
                [],
                ["'Checkout.completed' sends 'items' as string; the tracking plan says int"],
                ["'Checkout.complete' is not in the tracking plan"],
            ]
        )
        // The events keep every member of their usual form.
        #expect(document.events.map(\.floatValue) == [9.5, 9.5, nil])
        #expect(document.events[1].payload == ["items": .string("3")])
        #expect(collector.violatingEventCount == 2)
        #expect(collector.planViolations(of: collector.events[0].id) == [])
        #expect(
            collector.planViolations(of: collector.events[2].id) == [.unknownEvent(name: "Checkout.complete")]
        )
        // The page draws the marks from this document: CollectorPageBrowserTests.
        await collector.shutdown()
    }

    @Test func withoutAPlanEventsCarryNoMarks() async throws {
        let collector = try await Collector.start()
        let body = EventWireEncoder.encode([event("Anything", payload: ["x": 1], floatValue: nil)])
        _ = try await request(collector, "POST", "/v2/namespace/ns/", body: body)

        struct Document: Decodable {
            struct Recorded: Decodable {
                var type: String
                var planViolations: [String]?
            }
            var planViolations: Int?
            var events: [Recorded]
        }
        let document = try JSONDecoder().decode(
            Document.self,
            from: try await request(collector, "GET", "/events").body
        )
        #expect(document.planViolations == nil)
        #expect(document.events.map(\.type) == ["Anything"])
        #expect(document.events.first?.planViolations == nil)
        #expect(collector.violatingEventCount == 0)
        await collector.shutdown()
    }
}
#endif
