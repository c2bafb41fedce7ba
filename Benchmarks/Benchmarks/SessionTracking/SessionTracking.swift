import Benchmark
import BenchmarkSupport
import TelemetryKit
import TelemetryKitClient
import TelemetryKitInMemoryStorage
import TelemetryKitSessionTracking

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .perEvent

    let finalizer = benchmarkFinalizer
    let input = screenShownInput

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
