import Benchmark
import BenchmarkSupport
import Foundation
import TelemetryKitDefaults
import TelemetryKitTesting

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .perEvent
    let config = Telemetry.Config(appID: "BENCH-APP", namespace: "bench", appVersion: "1.0", buildNumber: "1")
    let input = screenShownInput

    Benchmark("Default pipeline: 13 processors + finalizer (ProcessorPipeline)") { benchmark in
        let pipeline = await startedPipeline(Telemetry.defaultProcessors(for: config))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try await pipeline.process(input))
        }
        benchmark.stopMeasurement()
    }

    // Through a TelemetryClient into an in-memory cache, from the two places apps call it:
    // main-actor code and a task off the main actor.
    registerClientBenchmarks(
        "Default pipeline",
        SteadyClient(processors: Telemetry.defaultProcessors(for: config)),
        input: input
    )
    // The same into the durable caches, beside an in-memory reference in the same run: the
    // DurableQueue suite.

    // What a queue of real events costs in memory: events from the 13 default processors
    // (about 50 payload entries each), held by an InMemoryEventCache (target ≤ 1 KB per
    // event), and queued in the default durable cache, SQLite (its page cache and
    // bookkeeping; the events themselves are on disk).
    let residentPerEvent = BenchmarkMetric.custom(
        "RSS bytes per event",
        polarity: .prefersSmaller,
        useScalingFactor: false
    )
    func memoryBenchmark(
        _ name: String,
        count: Int,
        _ measure: @escaping @Sendable (Int, (Int) async throws -> Event) async throws -> Int?
    ) {
        Benchmark(
            "Default pipeline: memory of \(name)",
            configuration: .init(
                metrics: [residentPerEvent],
                warmupIterations: 0,
                scalingFactor: .one,
                maxDuration: .seconds(60),
                maxIterations: 1
            )
        ) { benchmark in
            let pipeline = await startedPipeline(Telemetry.defaultProcessors(for: config))
            // Warm the processors' caches before the first reading.
            blackHole(try await pipeline.process(input))
            let bytes = try await measure(count) { number in
                try await pipeline.process(EventInput("Screen.shown", parameters: ["screen": "home", "count": number]))
            }
            if let bytes { benchmark.measurement(residentPerEvent, bytes) }
        }
    }
    memoryBenchmark("100,000 events in an InMemoryEventCache", count: 100_000, inMemoryBytesPerEvent)
    memoryBenchmark("10,000 events queued in a SQLiteEventCache", count: 10_000, sqliteBytesPerEvent)
}
