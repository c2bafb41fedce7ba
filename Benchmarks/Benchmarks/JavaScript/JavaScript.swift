import Benchmark
import BenchmarkSupport
import Foundation
import TelemetryKit
import TelemetryKitInMemoryStorage
import TelemetryKitJavaScript
import TelemetryKitTransformations

enum SetupError: Error {
    case noTransformation
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .perEvent

    // A typical finalized event: a few app parameters plus SDK keys.
    let event = benchmarkEvent("Purchase", payload: purchasePayload)

    Benchmark("JavaScriptContext.run, payload.x = 1, 8 keys") { benchmark in
        let context = try JavaScriptContext(code: "payload.x = 1", logger: SilentLogger())
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(context.run(event, destination: nil))
        }
    }

    Benchmark("JavaScript transformation, payload.x = 1, 8 keys") { benchmark in
        var config = TransformationConfiguration()
        config.registerJavaScript()
        config.setTransformation(JavaScriptSettingsBuilder(id: "x", code: "payload.x = 1"))
        let transformations = config.transformations(storage: InMemoryProcessorStorage(), logger: SilentLogger())
        guard let transformation = transformations.first else { throw SetupError.noTransformation }
        // The first event compiles the script.
        blackHole(await transformation.transform(event, destination: nil))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(await transformation.transform(event, destination: nil))
        }
    }

    Benchmark("JavaScript transformation, computed total, 2 keys") { benchmark in
        var config = TransformationConfiguration()
        config.registerJavaScript()
        config.setTransformation(
            JavaScriptSettingsBuilder(id: "total", code: "payload.total = payload.price * payload.qty")
        )
        let transformations = config.transformations(storage: InMemoryProcessorStorage(), logger: SilentLogger())
        guard let transformation = transformations.first else { throw SetupError.noTransformation }
        let small = Event(
            appID: "BENCH-APP",
            type: "Purchase",
            clientUser: "user",
            receivedAt: Date(),
            payload: ["price": 2.5, "qty": 3]
        )
        blackHole(await transformation.transform(small, destination: nil))
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            blackHole(await transformation.transform(small, destination: nil))
        }
    }
}
