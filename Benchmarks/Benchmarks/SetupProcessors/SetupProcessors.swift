import Benchmark
import BenchmarkSupport
import TelemetryKit
import TelemetryKitAppInfo
import TelemetryKitDefaultParameters
import TelemetryKitDefaultPrefix
import TelemetryKitPreviewFilter
import TelemetryKitTestMode
import TelemetryKitTesting
import TelemetryKitUserIdentifier
import TelemetryKitValidation

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .perEvent

    let finalizer = benchmarkFinalizer
    let input = screenShownInput

    /// Runs `processor` alone, its `next` being the finalizer, once per scaled iteration.
    func register(_ name: String, _ processor: any EventProcessor) {
        Benchmark(name) { benchmark in
            await processor.start(
                storage: InMemoryProcessorStorage(),
                logger: SilentLogger(),
                emitter: DiscardingEmitter()
            )
            let pipeline = ProcessorPipeline(processors: [processor], finalizer: finalizer)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(try await pipeline.process(input))
            }
        }
    }

    // The finalizer alone: subtract it from the rows below to get a processor's own cost.
    register("Baseline (finalizer only)", PassThroughProcessor())
    register("PreviewFilter", PreviewFilterProcessor(environment: [:]))
    register(
        "DefaultParameters (3 defaults)",
        DefaultParametersProcessor(parameters: ["plan": "pro", "source": "app", "level": 3])
    )
    register(
        "DefaultPrefix (name and 2 keys)",
        DefaultPrefixProcessor(eventPrefix: "MyApp.", parameterPrefix: "MyApp.")
    )
    register("Validation", ValidationProcessor())
    register("TestMode", TestModeProcessor(override: false))
    register("UserIdentifier (persisted default)", UserIdentifierProcessor())
    register("AppInfo", AppInfoProcessor(appVersion: "2.1.0", buildNumber: "42"))
}
