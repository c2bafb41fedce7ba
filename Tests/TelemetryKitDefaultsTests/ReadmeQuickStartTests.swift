#if Tools
import Foundation
import Testing
import TelemetryKitCollector
import TelemetryKitDefaults

extension FacadeTests {
    /// The README's quick start, word for word but for the endpoint (the local collector)
    /// and a temporary data directory: events reach the ingest endpoint over real HTTP.
    @Test func readmeQuickStartDeliversOverHTTP() async throws {
        await Telemetry.terminate()
        let collector = try await Collector.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("telemetrykit-readme-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        let apiBaseURL = try #require(URL(string: collector.baseURL))

        try await Telemetry.initialize(
            configuration: Telemetry.Config(
                appID: "APP-ID",
                namespace: "my-namespace",
                apiBaseURL: apiBaseURL,
                dataDirectory: directory
            ),
            processors: Telemetry.defaultProcessors() + [ABTestProcessor(variant: "B")]
        )
        Telemetry.signal("Screen.shown", parameters: ["screen": "home"])  // returns at once
        await Telemetry.send(EventInput("Checkout.completed", parameters: ["items": 3]))  // returns once cached
        await Telemetry.flush()

        let received = collector.events
        let screen = try #require(received.first { $0.type == "Screen.shown" })
        let checkout = try #require(received.first { $0.type == "Checkout.completed" })
        #expect(screen.appID == "APP-ID")
        #expect(screen.payload["screen"] == .string("home"))
        #expect(screen.payload["ABTest.variant"] == .string("B"))
        #expect(screen.payload["TelemetryDeck.Device.platform"] == .string("Linux"))
        #expect(checkout.payload["items"] == .int(3))
        #expect(collector.requests.allSatisfy { $0.path == "/v2/namespace/my-namespace/" })
        #expect(await Telemetry.stats.destinations[Telemetry.defaultDestinationID]?.delivered == received.count)
        await Telemetry.terminate()
        await collector.shutdown()
    }
}
#endif
