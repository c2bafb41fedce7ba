import Benchmark
import BenchmarkSupport
import TelemetryKit
import TelemetryKitInMemoryStorage
import TelemetryKitSessionTracking

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 100,
        scalingFactor: .kilo,
        maxDuration: .seconds(2)
    )

    let finalizer = EventFinalizer(appID: "BENCH-APP", salt: "salt", logger: SilentLogger())
    let input = EventInput("Screen.shown", parameters: ["screen": "home", "count": 3])

    Benchmark("SessionTracking, baseline (finalizer only)") { benchmark in
        let pipeline = ProcessorPipeline(processors: [], finalizer: finalizer)
        for _ in benchmark.scaledIterations {
            blackHole(try await pipeline.process(input))
        }
    }

    Benchmark("SessionTracking, processor alone") { benchmark in
        let processor = SessionTrackingProcessor(timeZoneOffset: 0)
        await processor.start(storage: InMemoryProcessorStorage(), logger: SilentLogger(), emitter: DiscardingEmitter())
        let pipeline = ProcessorPipeline(processors: [processor], finalizer: finalizer)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try await pipeline.process(input))
        }
        benchmark.stopMeasurement()
        await processor.stop()
    }
}
