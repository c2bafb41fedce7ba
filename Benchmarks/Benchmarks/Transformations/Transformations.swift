import Benchmark
import BenchmarkSupport
import Foundation
import TelemetryKit
import TelemetryKitDefaults
import TelemetryKitTesting
import TelemetryKitTransformations

/// Ten conditional transformations: five hold for `purchase` below, one for `screen`.
func tenConditionalTransformations() -> TransformationConfiguration {
    var config = TransformationConfiguration()
    let conditions: [Rule<Condition>] = [
        .just(.equals(ignoreCase: true, variable: "event_name", target: "purchase")),
        .just(.equals(variable: "event_name", target: "Screen.shown")),
        .just(.isGreaterThan(variable: "total", number: 10)),
        .just(.isLessThan(orEqual: true, variable: "items", number: 1)),
        .just(.contains(ignoreCase: true, variable: "coupon", string: "spring")),
        .just(.startsWith(variable: "screen", prefix: "settings.")),
        .and([.just(.isDefined(variable: "coupon")), .just(.isNotEmpty(variable: "currency"))]),
        .or([.just(.isNotDefined(variable: "currency")), .just(.equals(variable: "currency", target: "XXX"))]),
        .not(.just(.endsWith(variable: "email", suffix: "@example.com"))),
        .just(.doesNotEqual(variable: "plan", target: "free")),
    ]
    for (index, rule) in conditions.enumerated() {
        config.setTransformation(
            SetDataValuesSettingsBuilder(id: "t\(index)")
                .setConstant(index, to: .key("applied_\(index)"))
                .setScope(.afterProcessors)
                .setOrder(index * 10)
                .setConditions(rule)
        )
    }
    return config
}

/// A transformation that returns the event unchanged: the floor of the protocol's cost.
struct PassThrough: EventTransformation {
    let id: String
    var scope: TransformationScope { .afterProcessors }
    func transform(_ event: Event, destination: String?) async -> Event? { event }
}

/// The parameters of the `Screen.shown` event: one of the ten conditions holds for it.
let screenPayload: [String: PayloadValue] = [
    "total": 5, "items": 3, "currency": "EUR", "screen": "checkout", "email": "ada@example.com",
    "plan": "free", "TelemetryDeck.Device.platform": "Linux",
]

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .perEvent

    let purchase = benchmarkEvent("Purchase", payload: purchasePayload)
    let storage = InMemoryProcessorStorage()
    let screen = benchmarkEvent("Screen.shown", payload: screenPayload)

    for (label, event) in [("5 of 10 apply", purchase), ("1 of 10 applies", screen)] {
        Benchmark("Transformations, 10 conditional after processors, \(label)") { benchmark in
            let transformations = tenConditionalTransformations()
                .transformations(storage: storage, logger: SilentLogger())
                .ordered(for: nil)
            for _ in benchmark.scaledIterations {
                blackHole(await transformations.run(on: event, destination: nil))
            }
        }
    }

    Benchmark("Transformations, 10 pass-through (protocol floor)") { benchmark in
        let transformations: [any EventTransformation] = (0..<10).map { PassThrough(id: "p\($0)") }
        for _ in benchmark.scaledIterations {
            blackHole(await transformations.run(on: purchase, destination: nil))
        }
    }

    Benchmark("Transformations, lowercase all values") { benchmark in
        var config = TransformationConfiguration()
        config.setTransformation(LowercaseSettingsBuilder(id: "normalize").lowercaseAllVariables())
        let transformations = config.transformations(storage: storage, logger: SilentLogger()).ordered(for: nil)
        for _ in benchmark.scaledIterations {
            blackHole(await transformations.run(on: purchase, destination: nil))
        }
    }

    // What the transformations add per event through the client: compare with the same
    // input and no transformations.
    let purchaseInput = EventInput("Purchase", parameters: EventParameters(purchasePayload))
    let screenInput = EventInput("Screen.shown", parameters: EventParameters(screenPayload))
    let plain = SteadyClient()
    let transforming = SteadyClient(
        transformations: tenConditionalTransformations().transformations(storage: storage, logger: SilentLogger())
    )
    for (label, input) in [("purchase", purchaseInput), ("screen", screenInput)] {
        Benchmark("TelemetryClient pipelined, 0 processors, no transformations, \(label)") { benchmark in
            try await plain.measurePipelined(benchmark, input: input)
        }
        Benchmark("TelemetryClient pipelined, 0 processors, 10 conditional transformations, \(label)") {
            benchmark in
            try await transforming.measurePipelined(benchmark, input: input)
        }
    }

    // The same with the 13 default processors: the events carry ~50 metadata entries below
    // their parameters, so a condition on a key the event lacks looks in both layers.
    let config = Telemetry.Config(appID: "BENCH-APP", namespace: "bench", appVersion: "1.0", buildNumber: "1")
    let plainDefault = SteadyClient(processors: Telemetry.defaultProcessors(for: config))
    let transformingDefault = SteadyClient(
        processors: Telemetry.defaultProcessors(for: config),
        transformations: tenConditionalTransformations().transformations(storage: storage, logger: SilentLogger())
    )
    Benchmark("TelemetryClient pipelined, default processors, no transformations, purchase") { benchmark in
        try await plainDefault.measurePipelined(benchmark, input: purchaseInput)
    }
    Benchmark("TelemetryClient pipelined, default processors, 10 conditional transformations, purchase") {
        benchmark in
        try await transformingDefault.measurePipelined(benchmark, input: purchaseInput)
    }
}
