import Benchmark
import Foundation
import TelemetryKitDefaults
import TelemetryKitTesting

#if canImport(Glibc)
import Glibc
#endif

/// The process's resident memory in bytes (Linux: /proc/self/statm), or nil.
func residentMemoryBytes() -> Int? {
    #if os(Linux)
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
    return pages * sysconf(Int32(_SC_PAGESIZE))
    #else
    return nil
    #endif
}

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

    // What a queue of real events costs: 100,000 events from the 13 default processors
    // (about 50 payload entries each) held by an InMemoryEventCache. Target ≤ 1 KB per event.
    let residentPerEvent = BenchmarkMetric.custom(
        "RSS bytes per event",
        polarity: .prefersSmaller,
        useScalingFactor: false
    )
    Benchmark(
        "Default pipeline: memory of 100,000 events in an InMemoryEventCache",
        configuration: .init(
            metrics: [residentPerEvent],
            warmupIterations: 0,
            scalingFactor: .one,
            maxDuration: .seconds(60),
            maxIterations: 1
        )
    ) { benchmark in
        let processors = Telemetry.defaultProcessors(for: config)
        let storage = InMemoryProcessorStorage()
        for processor in processors {
            await processor.start(storage: storage, logger: SilentLogger(), emitter: DiscardingEmitter())
        }
        let pipeline = ProcessorPipeline(
            processors: processors,
            finalizer: EventFinalizer(appID: "BENCH-APP", logger: SilentLogger())
        )
        let count = 100_000
        let cache = InMemoryEventCache(limit: count)
        // Warm the processors' caches before the first reading.
        blackHole(try await pipeline.process(input))
        guard let before = residentMemoryBytes() else { return }
        var batch: [Event] = []
        batch.reserveCapacity(100)
        for number in 0..<count {
            let event = try await pipeline.process(
                EventInput("Screen.shown", parameters: ["screen": "home", "count": number])
            )
            batch.append(event)
            if batch.count == 100 {
                try await cache.append(batch)
                batch.removeAll(keepingCapacity: true)
            }
        }
        guard let after = residentMemoryBytes() else { return }
        blackHole(await cache.count())
        if let first = try await cache.peek(limit: 1).first {
            print("default-pipeline event: \(first.payloadCount) payload entries")
        }
        benchmark.measurement(residentPerEvent, (after - before) / count)
    }
}
