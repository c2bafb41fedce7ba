import Benchmark
import TelemetryKitDefaults
import TelemetryKitTesting

/// An emitter that drops what processors emit (the benchmark measures the event path only).
struct DiscardingEmitter: EventSending {
    func send(_ input: EventInput) async {}
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 100,
        scalingFactor: .kilo,
        maxDuration: .seconds(2)
    )
    let config = Telemetry.Config(appID: "BENCH-APP", namespace: "bench", appVersion: "1.0", buildNumber: "1")
    let input = EventInput("Screen.shown", parameters: ["screen": "home", "count": 3])

    Benchmark("Default pipeline: 13 processors + finalizer (ProcessorPipeline)") { benchmark in
        let processors = Telemetry.defaultProcessors(for: config)
        let storage = InMemoryProcessorStorage()
        for processor in processors {
            await processor.start(storage: storage, logger: SilentLogger(), emitter: DiscardingEmitter())
        }
        let pipeline = ProcessorPipeline(
            processors: processors,
            finalizer: EventFinalizer(appID: "BENCH-APP", logger: SilentLogger())
        )
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try await pipeline.process(input))
        }
        benchmark.stopMeasurement()
    }

    Benchmark("Default pipeline through TelemetryClient into an in-memory cache (per event, pipelined)") {
        benchmark in
        let client = TelemetryClient(
            configuration: .init(appID: "BENCH-APP"),
            processors: Telemetry.defaultProcessors(for: config),
            destinations: [
                Destination(
                    id: "spy",
                    transmitter: SpyEventTransmitter(),
                    cache: InMemoryEventCache(limit: 10_000),
                    policy: DeliveryPolicy(flushInterval: 86_400)
                )
            ],
            storage: InMemoryProcessorStorage(),
            logger: SilentLogger()
        )
        await client.start()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            client.event(input)
        }
        await client.waitUntilProcessed()
        benchmark.stopMeasurement()
        await client.shutdown()
    }
}
