import Benchmark
import BenchmarkSupport
import TelemetryKit
import TelemetryKitTesting

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .perEvent

    let finalizer = benchmarkFinalizer
    let input = screenShownInput

    Benchmark("Pipeline, 0 processors") { benchmark in
        let pipeline = ProcessorPipeline(processors: [], finalizer: finalizer)
        for _ in benchmark.scaledIterations {
            blackHole(try await pipeline.process(input))
        }
    }

    Benchmark("Pipeline, 10 trivial processors") { benchmark in
        let processors: [any EventProcessor] = (0..<10).map {
            ParameterAddingProcessor(key: "Trivial.key\($0)", value: true)
        }
        let pipeline = ProcessorPipeline(processors: processors, finalizer: finalizer)
        for _ in benchmark.scaledIterations {
            blackHole(try await pipeline.process(input))
        }
    }

    // Payload writes after finalization (what transformations and scripts do): they go to the
    // event's own layer, so many stay linear and never copy the shared metadata.
    Benchmark("Event: 1,000 payload writes to one event (per write)") { benchmark in
        let keys = (0..<1_000).map { "key\($0)" }
        var event = benchmarkEvent("Bulk", payload: purchasePayload)
        benchmark.startMeasurement()
        for (index, _) in benchmark.scaledIterations.enumerated() {
            event.setPayloadValue(.int(Int64(index)), forKey: keys[index % keys.count])
        }
        benchmark.stopMeasurement()
        blackHole(event)
    }

    Benchmark("Finalizer") { benchmark in
        var context = EventContext(userIdentifier: "user-42", isTestMode: false)
        context.addParameters(["TelemetryDeck.Device.platform": "Linux", "TelemetryDeck.Device.architecture": "x86_64"])
        for _ in benchmark.scaledIterations {
            blackHole(finalizer.finalize(input, context: context))
        }
    }

    // A typed event against the untyped call it replaces (the same name, four parameters and
    // float value): what `@TelemetryEvent` adds per event is building the parameters from the
    // properties, at most 0.1 µs more.
    let plan = CheckoutPlan.pro
    Benchmark("EventInput, untyped call (4 parameters, float value)") { benchmark in
        for index in benchmark.scaledIterations {
            blackHole(
                EventInput(
                    "Checkout.completed",
                    parameters: ["items": index, "plan": plan.rawValue, "coupon": "SPRING", "express": true],
                    floatValue: 19.99
                )
            )
        }
    }

    Benchmark("EventInput, typed event (the same)") { benchmark in
        for index in benchmark.scaledIterations {
            blackHole(
                EventInput(
                    CheckoutCompletedEvent(items: index, plan: plan, coupon: "SPRING", express: true, total: 19.99)
                )
            )
        }
    }

    let steady = SteadyClient()
    let clientInput = EventInput("Screen.shown", parameters: ["screen": "home"])

    registerClientBenchmarks("TelemetryClient, 0 processors", steady, input: clientInput)

    Benchmark("TelemetryClient.event, caller side (fire-and-forget)") { benchmark in
        try await steady.measureCallerSide(benchmark, name: "Screen.shown", parameters: ["screen": "home"])
    }
}
