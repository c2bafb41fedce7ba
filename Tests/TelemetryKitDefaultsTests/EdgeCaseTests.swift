#if Tools
import Foundation
import Testing
import TelemetryKitCollector
import TelemetryKitDefaults
import TelemetryKitTesting

/// What a first hour with the SDK found, each through the facade with the durable default
/// queue and the loopback collector: no event lost for another's sake, no outcome claimed that
/// did not happen, no deadline missed. Part of the serialized facade suite.
extension FacadeTests {
    private func configuration(_ collector: Collector, directory: URL) throws -> Telemetry.Config {
        var configuration = Telemetry.Config(
            appID: "EDGE-APP",
            namespace: "edges",
            apiBaseURL: try #require(URL(string: collector.baseURL)),
            dataDirectory: directory
        )
        configuration.deliveryPolicy = DeliveryPolicy(flushInterval: 3600, backoff: BackoffPolicy(jitter: 0))
        return configuration
    }

    private func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("telemetrykit-edges-\(UUID())")
    }

    @Test func oneBadEventAmongGoodOnesCostsOnlyItself() async throws {
        await Telemetry.terminate()
        let collector = try await Collector.start()
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let logger = RecordingLogger()
        try await Telemetry.initialize(
            configuration: configuration(collector, directory: directory),
            processors: [],
            logger: logger
        )
        for number in 0..<99 {
            if number == 50 {
                // Fire-and-forget: counted and logged, never queued.
                Telemetry.signal("   ")
                Telemetry.signal("")
            }
            Telemetry.signal("Good.event", parameters: ["n": "\(number)"])
        }
        let awaited = await Telemetry.send(EventInput("Keyed", parameters: ["": "no key"]))
        #expect(awaited == .refused(EventRefusal(eventName: "Keyed", reason: .blankParameterKey)))
        #expect(await Telemetry.flush() == .complete)

        #expect(collector.events.count == 99)
        #expect(collector.events.allSatisfy { $0.type == "Good.event" })
        #expect(collector.requests.allSatisfy { $0.status == 200 })
        #expect(await Telemetry.stats.refused == 3)
        // Once per name: the two blank names are one name each ("   " and "").
        #expect(logger.messages(at: .error).filter { $0.contains("refused") }.count == 3)
        await Telemetry.terminate()
        await collector.shutdown()
    }

    @Test func anOversizedEventIsRefusedAndEvictsNothing() async throws {
        await Telemetry.terminate()
        let collector = try await Collector.start()
        collector.script([.status(503)])
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Telemetry.initialize(configuration: configuration(collector, directory: directory), processors: [])
        for number in 0..<302 {
            Telemetry.signal("Queued", parameters: ["n": "\(number)"])
        }
        await Telemetry.client?.waitUntilProcessed()
        let huge = String(repeating: "x", count: 9 * 1024 * 1024)
        let outcome = await Telemetry.send(EventInput("Huge", parameters: ["blob": huge]))
        guard case .refused(let refusal) = outcome, case .tooLarge(_, let limit) = refusal.reason else {
            Issue.record("expected a refusal as too large, got \(outcome)")
            return
        }
        #expect(limit == TelemetryClient.Configuration.defaultMaxEventBytes)
        let status = await Telemetry.client?.deliveryStatus(of: Telemetry.defaultDestinationID)
        #expect(status?.queued == 302)
        #expect(await Telemetry.stats.destinations[Telemetry.defaultDestinationID]?.evicted == 0)
        await Telemetry.terminate()
        await collector.shutdown()
    }

    @Test func terminateAndFlushKeepTheirDeadlinesAgainstAServerThatNeverAnswers() async throws {
        await Telemetry.terminate()
        let collector = try await Collector.start()
        collector.script(Array(repeating: Fault.accept.delayed(by: 120), count: 4))
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        var configuration = try configuration(collector, directory: directory)
        configuration.shutdownTimeout = 1
        try await Telemetry.initialize(configuration: configuration, processors: [])
        await Telemetry.event("Waiting.forAnAnswer")

        // The transmitter's own timeout is 30 s; both calls end at their deadline instead.
        let flushStart = Date()
        #expect(await Telemetry.flush(timeout: 1) == .incomplete(remaining: 1))
        #expect(Date().timeIntervalSince(flushStart) < 15)
        let terminateStart = Date()
        await Telemetry.terminate()
        #expect(Date().timeIntervalSince(terminateStart) < 15)

        // The cancelled request's batch stayed queued for the next launch.
        try await Telemetry.initialize(configuration: configuration, processors: [])
        #expect(await Telemetry.client?.deliveryStatus(of: Telemetry.defaultDestinationID)?.queued == 1)
        await Telemetry.terminate()
        await collector.shutdown()
    }

    @Test func a413ForOneEventIsAReportedRejectionNotASuccess() async throws {
        await Telemetry.terminate()
        let collector = try await Collector.start()
        collector.script(Array(repeating: Fault.status(413), count: 8))
        let directory = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Telemetry.initialize(configuration: configuration(collector, directory: directory), processors: [])
        await Telemetry.event("Too.large.for.the.proxy")
        #expect(await Telemetry.flush() == .rejected(count: 1, remaining: 0))
        let stats = await Telemetry.stats.destinations[Telemetry.defaultDestinationID]
        #expect(stats?.rejected == 1)
        #expect(stats?.delivered == 0)
        #expect(await Telemetry.client?.deliveryStatus(of: Telemetry.defaultDestinationID)?.lastSuccess == nil)
        await Telemetry.terminate()
        await collector.shutdown()
    }

    @Test func flushBeforeInitializeCountsWhatWaits() async {
        await Telemetry.terminate()
        await Telemetry.event("Early.one")
        await Telemetry.event("Early.two")
        #expect(await Telemetry.flush() == .incomplete(remaining: 2))
        #expect(await Telemetry.flush(timeout: 1) == .incomplete(remaining: 2))
        await Telemetry.terminate()
        #expect(await Telemetry.flush() == .complete)
    }

    @Test func aSecondInitializeWithAnotherAppIDIsATypedError() async throws {
        await Telemetry.terminate()
        let spy = SpyEventTransmitter()
        try await initialize(processors: [], spy: spy)
        // The same configuration again: ignored, as in v3.
        try await initialize(processors: [], spy: spy)
        var other = config
        other.appID = "ANOTHER-APP"
        await #expect(throws: TelemetryError.self) {
            try await Telemetry.initialize(configuration: other, processors: [], transmitter: spy)
        }
        do {
            try await Telemetry.initialize(configuration: other, processors: [], transmitter: spy)
        } catch {
            #expect(error.code == .alreadyInitialized)
            #expect(error.message.contains("Telemetry.terminate()"))
        }
        await Telemetry.event("Still.theFirstApp")
        await Telemetry.flush()
        #expect(spy.deliveredEvents.map(\.appID) == ["YOUR-APP-ID"])
        await Telemetry.terminate()
    }

    @Test func theInsecureHTTPErrorNamesTheRealProperty() async {
        await Telemetry.terminate()
        let insecure = Telemetry.Config(
            appID: "APP",
            namespace: "ns",
            apiBaseURL: URL(string: "http://ingest.example.com")!,
            dataDirectory: temporaryDirectory()
        )
        do {
            try await Telemetry.initialize(configuration: insecure, processors: [])
            Issue.record("plain HTTP to another host was accepted")
        } catch {
            #expect(error.code == .invalidEndpoint)
            #expect(error.message.contains("Telemetry.Config.allowInsecureHTTP"))
        }
        await Telemetry.terminate()
    }
}
#endif
