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
    let steady = SteadyClient(processors: Telemetry.defaultProcessors(for: config))
    Benchmark("Default pipeline: awaited send (main actor)") { benchmark in
        try await steady.measureAwaitedOnMainActor(benchmark, input: input)
    }
    Benchmark("Default pipeline: awaited send (detached task)") { benchmark in
        try await steady.measureAwaited(benchmark, input: input)
    }
    Benchmark("Default pipeline: fire-and-forget, total (main actor)") { benchmark in
        try await steady.measurePipelinedOnMainActor(benchmark, input: input)
    }
    Benchmark("Default pipeline: fire-and-forget, total (detached task)") { benchmark in
        try await steady.measurePipelined(benchmark, input: input)
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
        let pipeline = await startedPipeline(Telemetry.defaultProcessors(for: config))
        // Warm the processors' caches before the first reading.
        blackHole(try await pipeline.process(input))
        let bytes = try await inMemoryBytesPerEvent(count: 100_000) { number in
            try await pipeline.process(EventInput("Screen.shown", parameters: ["screen": "home", "count": number]))
        }
        if let bytes { benchmark.measurement(residentPerEvent, bytes) }
    }

    // The default durable cache: what 10,000 queued default-pipeline events keep resident
    // (SQLite's page cache and the cache's bookkeeping; the events themselves are on disk).
    Benchmark(
        "Default pipeline: memory of 10,000 events queued in a SQLiteEventCache",
        configuration: .init(
            metrics: [residentPerEvent],
            warmupIterations: 0,
            scalingFactor: .one,
            maxDuration: .seconds(60),
            maxIterations: 1
        )
    ) { benchmark in
        let pipeline = await startedPipeline(Telemetry.defaultProcessors(for: config))
        blackHole(try await pipeline.process(input))
        let bytes = try await sqliteBytesPerEvent(count: 10_000) { number in
            try await pipeline.process(EventInput("Screen.shown", parameters: ["screen": "home", "count": number]))
        }
        if let bytes { benchmark.measurement(residentPerEvent, bytes) }
    }
}
