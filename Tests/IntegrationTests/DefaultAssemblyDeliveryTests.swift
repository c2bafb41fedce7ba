#if Tools
import Foundation
import TelemetryKitCollector
import TelemetryKitSupport
import TelemetryKitHTTPTestSupport
import TelemetryKitTesting
import Testing

// `makeClient` is the assembly `Telemetry.initialize` runs; calling it directly gives this
// test its own client instead of the process-wide facade that FacadeTests use one at a time.
@testable import TelemetryKitDefaults

/// What an app gets from `Telemetry.initialize` with nothing overridden — the default
/// pipeline, the SQLite queue in the data directory, the HTTP transmitter over URLSession —
/// against the loopback collector, which first answers 503.
@Suite struct DefaultAssemblyDeliveryTests {
    @Test func eventsCrossTheDefaultPipelineSQLiteAndHTTPDespiteA503() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = ManualClock()
        try await withCollector { collector in
            collector.script([.status(503, retryAfter: "1")])
            let configuration = Telemetry.Config(
                appID: "E2E-APP",
                namespace: "e2e",
                apiBaseURL: try #require(URL(string: collector.baseURL)),
                salt: "pepper",
                defaultUser: "user-42",
                defaultParameters: ["plan": "pro"],
                deliveryPolicy: DeliveryPolicy(flushInterval: 3600, backoff: BackoffPolicy(jitter: 0)),
                appVersion: "2.1.0",
                buildNumber: "42",
                dataDirectory: directory.url
            )
            let logger = RecordingLogger()
            let client = try await Telemetry.makeClient(
                configuration: configuration,
                processors: nil,
                cache: nil,
                transmitter: nil,
                logger: logger,
                storage: nil,
                destinations: [],
                transformations: [],
                clock: clock
            ).client
            await client.start()
            client.event("Screen.shown", parameters: ["screen": "home"])
            client.event("Checkout.completed", parameters: ["items": 3])
            await client.waitUntilProcessed()
            let queue = directory.url.appendingPathComponent("events-\(Telemetry.defaultDestinationID).sqlite")
            #expect(FileManager.default.fileExists(atPath: queue.path))

            // The 503 keeps the batch in the SQLite queue; a flush within its Retry-After sends
            // nothing, the first flush after it delivers.
            #expect(await client.flush() == .incomplete(remaining: 4))
            #expect(collector.events.isEmpty)
            #expect(await client.flush() == .incomplete(remaining: 4))
            #expect(collector.requests.count == 1)
            clock.advance(by: 1)
            #expect(await client.flush() == .complete)

            #expect(collector.requests.map(\.status) == [503, 200])
            #expect(collector.requests.allSatisfy { $0.path == "/v2/namespace/e2e/" })
            let received = collector.events
            #expect(
                received.map(\.type) == [
                    "TelemetryDeck.Acquisition.newInstallDetected", "TelemetryDeck.Session.started",
                    "Screen.shown", "Checkout.completed",
                ]
            )
            #expect(received.allSatisfy { $0.appID == "E2E-APP" })
            // The default user, hashed with the salt: the raw identifier never leaves the app.
            #expect(Set(received.map(\.clientUser)) == [SHA256Hex.digest("user-42" + "pepper")])
            let screen = try #require(received.first { $0.type == "Screen.shown" })
            #expect(screen.payload["screen"] == .string("home"))
            #expect(screen.payload["plan"] == .string("pro"))
            #expect(screen.payload["TelemetryDeck.Device.platform"] == .string("Linux"))
            #expect(screen.payload["TelemetryDeck.AppInfo.versionAndBuildNumber"] == .string("2.1.0 (build 42)"))
            #expect(screen.payload["TelemetryDeck.SDK.nameAndVersion"] == .string("TelemetryKit \(SDKInfo.version)"))
            #expect(screen.payload["TelemetryDeck.Retention.totalSessionsCount"] == .int(1))
            let checkout = try #require(received.first { $0.type == "Checkout.completed" })
            #expect(checkout.payload["items"] == .int(3))

            // Nothing lost, nothing sent twice, the queue empty.
            #expect(collector.eventCount == 4)
            #expect(collector.duplicateCount == 0)
            let stats = try #require(await client.stats.destinations[Telemetry.defaultDestinationID])
            #expect(stats.delivered == 4)
            #expect(stats.retried == 4)
            #expect(stats.queued == 0)
            #expect(logger.warnings.isEmpty, "unexpected warnings: \(logger.warnings)")
            await client.shutdown()
        }
    }

    /// The default queue opens on another thread while the rest is built. A configuration
    /// that fails still fails with the first error, and the queue it had opened meanwhile is
    /// closed again: the same data directory then starts a client whose queue works.
    @Test func aFailedAssemblyLeavesTheDataDirectoryToTheNextOne() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        func assemble(_ apiBaseURL: URL) async throws(TelemetryError) -> TelemetryClient {
            var configuration = Telemetry.Config(appID: "E2E-APP", namespace: "e2e", apiBaseURL: apiBaseURL)
            configuration.dataDirectory = directory.url
            configuration.shutdownTimeout = 0.2  // nothing listens at the port: do not wait 5 s
            return try await Telemetry.makeClient(
                configuration: configuration,
                processors: [],
                cache: nil,
                transmitter: nil,
                logger: RecordingLogger(),
                storage: nil,
                destinations: [],
                transformations: [],
                clock: ManualClock()
            ).client
        }
        // Plain HTTP to another host is refused (an invalid endpoint), not the directory.
        let refused = try #require(URL(string: "http://example.com"))
        let error = await #expect(throws: TelemetryError.self) { _ = try await assemble(refused) }
        #expect(error?.code == .invalidEndpoint)
        let client = try await assemble(try #require(URL(string: "http://127.0.0.1:9")))
        await client.start()
        #expect(await client.send(EventInput("Screen.shown")) == .cached)
        #expect(await client.stats.destinations[Telemetry.defaultDestinationID]?.queued == 1)
        await client.shutdown()
    }
}
#endif
