import Benchmark
import BenchmarkSupport
import Foundation
import TelemetryKit
import TelemetryKitClient
import TelemetryKitConsent
import TelemetryKitInMemoryStorage
import TelemetryKitPresets

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .perEvent

    let finalizer = benchmarkFinalizer
    let input = screenShownInput

    Benchmark("Consent: granted, no purposes") { benchmark in
        let consent = ConsentProcessor()
        await consent.start(storage: InMemoryProcessorStorage(), logger: SilentLogger(), emitter: DiscardingEmitter())
        await consent.grant()
        let pipeline = ProcessorPipeline(processors: [consent], finalizer: finalizer)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try await pipeline.process(input))
        }
    }

    Benchmark("Consent: granted, tagged with purposes") { benchmark in
        let consent = ConsentProcessor(defaultPurposes: [.analytics, .marketing])
        await consent.start(storage: InMemoryProcessorStorage(), logger: SilentLogger(), emitter: DiscardingEmitter())
        await consent.grant([.analytics, .marketing])
        let pipeline = ProcessorPipeline(processors: [consent], finalizer: finalizer)
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(try await pipeline.process(input))
        }
    }

    Benchmark("Consent: destination filter") { benchmark in
        let consent = ConsentProcessor(defaultPurposes: [.analytics])
        await consent.start(storage: InMemoryProcessorStorage(), logger: SilentLogger(), emitter: DiscardingEmitter())
        await consent.grant([.analytics, .marketing])
        let pipeline = ProcessorPipeline(processors: [consent], finalizer: finalizer)
        let event = try await pipeline.process(input)
        let filter = consent.destinationFilter(requiring: [.marketing])
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(await filter.transform(event, destination: "ads"))
        }
    }

    Benchmark("Presets: navigationPathChanged input") { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(EventInput.navigationPathChanged(from: "settings", to: "settings/privacy"))
        }
    }
}
