#if Metrics
import CoreMetrics
import MetricsTestKit
import TelemetryKit
import TelemetryKitMetrics
import TelemetryKitTesting
import Testing

@Suite("TelemetryMetricsReporter")
struct TelemetryMetricsReporterTests {
    /// Two destinations: `ok` delivers everything; `flaky` asks for a retry once, then rejects.
    /// The clock is manual, so `flaky`'s retry comes only from the test's second flush, never
    /// from a background round that a slow, loaded test run would otherwise reach first.
    private static func makeClient() -> (TelemetryClient, flaky: SpyEventTransmitter) {
        let delivering = SpyEventTransmitter()
        let flaky = SpyEventTransmitter()
        flaky.script([.retry(after: nil), .rejected(RejectionReason("unknown app", statusCode: 401))])
        let client = TelemetryClient(
            configuration: .init(appID: "APP"),
            processors: [FilteringProcessor(names: ["Debug.noise"])],
            destinations: [
                Destination(id: "ok", transmitter: delivering),
                Destination(id: "flaky", transmitter: flaky),
            ],
            storage: InMemoryProcessorStorage(),
            logger: SilentLogger(),
            clock: ManualClock()
        )
        return (client, flaky)
    }

    @Test("counters grow by what the client counted between reports; gauges hold the queue sizes")
    func countersAndGauges() async throws {
        let (client, _) = Self.makeClient()
        await client.start()
        let metrics = TestMetrics()
        let reporter = TelemetryMetricsReporter(client: client, dimensions: [("service", "checkout")], factory: metrics)

        await client.send("Checkout.started")
        await client.send("Checkout.completed")
        await client.send("Debug.noise")
        await client.flush()  // ok: delivered; flaky: retry, both stay queued
        await reporter.report()

        let service = ("service", "checkout")
        #expect(try metrics.expectCounter("telemetrykit_events_processed", [service]).totalValue == 3)
        #expect(try metrics.expectCounter("telemetrykit_events_filtered", [service]).totalValue == 1)
        #expect(try metrics.expectCounter("telemetrykit_events_failed", [service]).totalValue == 0)
        let ok = [service, ("destination", "ok")]
        let flaky = [service, ("destination", "flaky")]
        #expect(try metrics.expectCounter("telemetrykit_events_accepted", ok).totalValue == 2)
        #expect(try metrics.expectCounter("telemetrykit_events_delivered", ok).totalValue == 2)
        #expect(try metrics.expectCounter("telemetrykit_events_delivered", flaky).totalValue == 0)
        #expect(try metrics.expectCounter("telemetrykit_events_retried", flaky).totalValue == 2)
        #expect(try metrics.expectCounter("telemetrykit_events_rejected", flaky).totalValue == 0)
        #expect(try metrics.expectGauge("telemetrykit_events_queued", ok).lastValue == 0)
        #expect(try metrics.expectGauge("telemetrykit_events_queued", flaky).lastValue == 2)
        #expect(try metrics.expectGauge("telemetrykit_events_held_in_memory", flaky).lastValue == 0)

        await client.flush()  // flaky: rejected now
        await reporter.report()
        #expect(try metrics.expectCounter("telemetrykit_events_rejected", flaky).totalValue == 2)
        // Not counted twice: the second report adds only what grew.
        #expect(try metrics.expectCounter("telemetrykit_events_retried", flaky).totalValue == 2)
        #expect(try metrics.expectCounter("telemetrykit_events_processed", [service]).totalValue == 3)
        #expect(try metrics.expectCounter("telemetrykit_events_overflow_dropped", flaky).totalValue == 0)
        #expect(try metrics.expectCounter("telemetrykit_events_evicted", flaky).totalValue == 0)
        #expect(try metrics.expectGauge("telemetrykit_events_queued", flaky).lastValue == 0)
        await client.shutdown()
    }

    @Test("a cache that fails shows in cache_failures and held_in_memory")
    func heldInMemory() async throws {
        let cache = FaultInjectingEventCache()
        let client = TelemetryClient(
            configuration: .init(appID: "APP"),
            destinations: [Destination(id: "disk", transmitter: SpyEventTransmitter(), cache: cache)],
            storage: InMemoryProcessorStorage(),
            logger: SilentLogger()
        )
        await client.start()
        let metrics = TestMetrics()
        let reporter = TelemetryMetricsReporter(client: client, factory: metrics)
        cache.failAllAppends()
        await client.send("Order.placed")
        await reporter.report()
        let disk = [("destination", "disk")]
        #expect(try metrics.expectCounter("telemetrykit_events_cache_failures", disk).totalValue == 1)
        #expect(try metrics.expectGauge("telemetrykit_events_held_in_memory", disk).lastValue == 1)
        cache.recover()
        await client.flush()
        await reporter.report()
        #expect(try metrics.expectGauge("telemetrykit_events_held_in_memory", disk).lastValue == 0)
        #expect(try metrics.expectCounter("telemetrykit_events_delivered", disk).totalValue == 1)
        await client.shutdown()
    }

    @Test("run(every:) reports until cancelled, and once more at the end")
    func runLoop() async throws {
        let client = TelemetryClient(
            configuration: .init(appID: "APP"),
            destinations: [Destination(id: "ok", transmitter: SpyEventTransmitter())],
            storage: InMemoryProcessorStorage(),
            logger: SilentLogger()
        )
        await client.start()
        let metrics = TestMetrics()
        let reporter = TelemetryMetricsReporter(client: client, labelPrefix: "tk", factory: metrics)
        let loop = Task { await reporter.run(every: .milliseconds(10)) }
        await client.send("Checkout.started")
        loop.cancel()
        await loop.value
        #expect(try metrics.expectCounter("tk_events_processed").totalValue == 1)
        #expect(reporter.label("delivered") == "tk_events_delivered")
        await client.shutdown()
    }
}
#endif
