import TelemetryKit
import TelemetryKitSupport
import TelemetryKitTesting
import TelemetryKitTransformations
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The spec's custom transformer: adds `transformed: "true"` unless disabled in its configuration.
struct MyCustomTransformer: Transformer {
    static let moduleType = "MyCustomTransformer"
    var id: String { Self.moduleType }

    func apply(_ settings: TransformationSettings, to event: Event, scope: TransformationPoint) async -> Event? {
        let enableEnrichment: Bool = settings.configuration.get(key: "enable_enrichment") ?? true
        var event = event
        if enableEnrichment {
            event.payload["transformed"] = "true"
            event.payload["point"] = .string(scope.description)
        }
        return event
    }
}

/// Drops every event it is applied to.
struct DropTransformer: Transformer {
    let id = "Drop"
    func apply(_ settings: TransformationSettings, to event: Event, scope: TransformationPoint) async -> Event? {
        nil
    }
}

/// Appends its transformation id to the `trail` parameter, to observe execution order.
struct TrailTransformer: Transformer {
    let id = "Trail"
    func apply(_ settings: TransformationSettings, to event: Event, scope: TransformationPoint) async -> Event? {
        var event = event
        let trail = event.payload["trail"]?.stringValue ?? ""
        event.payload["trail"] = .string(trail.isEmpty ? settings.id : "\(trail),\(settings.id)")
        return event
    }
}

/// Reads the clock from its context, to show factories receive it.
struct ClockStampTransformer: Transformer {
    let id = "ClockStamp"
    let clock: any TelemetryClock
    func apply(_ settings: TransformationSettings, to event: Event, scope: TransformationPoint) async -> Event? {
        var event = event
        event.payload["stamp"] = .double(clock.now.timeIntervalSince1970)
        return event
    }
}

@Suite struct ConfigurationTests {
    func trail(_ id: String, scope: TransformationScope = .afterProcessors, order: Int? = nil) -> TransformationSettings
    {
        TransformationSettings(id: id, transformerID: "Trail", scope: scope, order: order)
    }

    @Test func setTransformationReplacesTheSamePairInPlace() {
        var config = TransformationConfiguration()
        config.setTransformation(SetDataValuesSettingsBuilder(id: "a").setConstant("1", to: "x"))
        config.setTransformation(LowercaseSettingsBuilder(id: "a"))
        config.setTransformation(SetDataValuesSettingsBuilder(id: "b").setConstant("1", to: "x"))
        config.setTransformation(SetDataValuesSettingsBuilder(id: "a").setConstant("2", to: "x").setOrder(3))
        #expect(config.settings.map(\.id) == ["a", "a", "b"])
        #expect(config.settings.map(\.transformerID) == ["SetDataValues", "Lowercase", "SetDataValues"])
        #expect(config.settings[0].order == 3)
        #expect(config.settings[0].configuration["operations"] == [["constant": "2", "to": ["key": "x"]]])
        config.removeTransformation(id: "a", transformerID: "Lowercase")
        #expect(config.settings.map(\.transformerID) == ["SetDataValues", "SetDataValues"])
    }

    @Test func orderAscendingThenRegistration() async {
        var config = TransformationConfiguration(transformers: [TrailTransformer()])
        config.setTransformation(trail("last-1"))
        config.setTransformation(trail("hundred", order: 100))
        config.setTransformation(trail("ten-1", order: 10))
        config.setTransformation(trail("last-2"))
        config.setTransformation(trail("ten-2", order: 10))
        config.setTransformation(trail("minus", order: -1))
        config.setTransformation(trail("max", order: Int.max))
        let result = await run(makeTransformations(config), on: makeEvent())
        #expect(result?.payload["trail"] == "minus,ten-1,ten-2,hundred,last-1,last-2,max")
    }

    @Test func unknownTransformerPassesEventsThroughWithAWarning() async {
        var config = TransformationConfiguration()
        config.setTransformation(TransformationSettings(id: "mystery", transformerID: "Nope"))
        config.setTransformation(SetDataValuesSettingsBuilder(id: "tag").setConstant("yes", to: "tagged"))
        let logger = RecordingLogger()
        let transformations = makeTransformations(config, logger: logger)
        #expect(transformations.map(\.id) == ["tag"])
        #expect(logger.warnings == ["transformation 'mystery': unknown transformer_id 'Nope'; events pass unchanged"])
        #expect(await run(transformations, on: makeEvent(payload: ["a": 1]))?.payload == ["a": 1, "tagged": "yes"])
    }

    @Test func invalidBuiltInConfigurationIsLeftOutWithAWarning() async {
        var config = TransformationConfiguration()
        config.setTransformation(
            TransformationSettings(id: "broken", transformerID: "SetDataValues", configuration: ["operations": []])
        )
        let logger = RecordingLogger()
        #expect(makeTransformations(config, logger: logger).isEmpty)
        #expect(logger.warnings.count == 1)
        #expect(logger.warnings.first?.contains("configuration.operations") == true)
    }

    @Test func customTransformerFromTheSpec() async throws {
        var config = TransformationConfiguration(transformers: [MyCustomTransformer()])
        try config.load(
            json: Data(
                json: """
                    [{"transformation_id": "on", "transformer_id": "MyCustomTransformer", "scope": ["A"]},
                     {"transformation_id": "off", "transformer_id": "MyCustomTransformer", "scope": ["B"],
                      "configuration": {"enable_enrichment": false}}]
                    """
            )
        )
        let transformations = makeTransformations(config)
        let event = makeEvent(payload: ["a": 1])
        #expect(
            await run(transformations, on: event, destination: "A")?.payload
                == ["a": 1, "transformed": "true", "point": "destination 'A'"]
        )
        #expect(await run(transformations, on: event, destination: "B")?.payload == ["a": 1])
        #expect(await run(transformations, on: event)?.payload == ["a": 1])
    }

    @Test func factoriesGetTheContextOncePerBuild() async {
        var config = TransformationConfiguration()
        let calls = Locked(0)
        config.registry.register(id: "ClockStamp") { context in
            calls.withLock { $0 += 1 }
            return ClockStampTransformer(clock: context.clock)
        }
        config.setTransformation(TransformationSettings(id: "one", transformerID: "ClockStamp"))
        config.setTransformation(TransformationSettings(id: "two", transformerID: "ClockStamp", order: 1))
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1000))
        let transformations = makeTransformations(config, clock: clock)
        #expect(calls.current == 1)
        #expect(await run(transformations, on: makeEvent())?.payload == ["stamp": 1000.0])
    }

    @Test func nilDropsTheEventForThatScopeOnly() async {
        var config = TransformationConfiguration(transformers: [DropTransformer()])
        config.setTransformation(
            TransformationSettings(id: "drop-a", transformerID: "Drop", scope: .destinations(["A"]))
        )
        config.setTransformation(
            SetDataValuesSettingsBuilder(id: "tag").setConstant(1, to: "seen").setScope(.allDestinations)
        )
        let transformations = makeTransformations(config)
        let event = makeEvent()
        #expect(await run(transformations, on: event, destination: "A") == nil)
        #expect(await run(transformations, on: event, destination: "B")?.payload == ["seen": 1])
        #expect(await run(transformations, on: event)?.payload == [:])
    }

    @Test func numericConditionOnANonNumberSkipsAndWarnsOnce() async {
        var config = TransformationConfiguration()
        config.setTransformation(
            SetDataValuesSettingsBuilder(id: "big-spender")
                .setConstant(true, to: "big")
                .setConditions(.just(.isGreaterThan(variable: "amount", number: 100)))
        )
        let logger = RecordingLogger()
        let transformations = makeTransformations(config, logger: logger)
        #expect(await run(transformations, on: makeEvent(payload: ["amount": "lots"]))?.payload == ["amount": "lots"])
        #expect(await run(transformations, on: makeEvent(payload: ["amount": "many"]))?.payload == ["amount": "many"])
        #expect(
            await run(transformations, on: makeEvent(payload: ["amount": 150]))?.payload == [
                "amount": 150, "big": true,
            ]
        )
        #expect(await run(transformations, on: makeEvent(payload: ["amount": 50]))?.payload == ["amount": 50])
        #expect(logger.warnings.count == 1)
        #expect(logger.warnings.first?.contains("'big-spender' skipped") == true)
        #expect(logger.entries.first?.eventName == "purchase")
    }

    @Test func scopesSelectWhereTransformationsRun() async {
        var config = TransformationConfiguration()
        config.setTransformation(
            SetDataValuesSettingsBuilder(id: "only-a").setConstant("a", to: "only_a").setScope(.destinations(["A"]))
        )
        config.setTransformation(
            SetDataValuesSettingsBuilder(id: "all").setConstant("all", to: "every").setScope(.allDestinations)
        )
        config.setTransformation(
            SetDataValuesSettingsBuilder(id: "cache").setConstant("c", to: "cached").setScope(.afterProcessors)
        )
        let transformations = makeTransformations(config)
        let cached = await run(transformations, on: makeEvent())
        #expect(cached?.payload == ["cached": "c"])
        guard let cached else { return }
        #expect(
            await run(transformations, on: cached, destination: "A")?.payload == [
                "cached": "c", "only_a": "a", "every": "all",
            ]
        )
        #expect(await run(transformations, on: cached, destination: "B")?.payload == ["cached": "c", "every": "all"])
    }

    @Test func specScopeAliases() {
        #expect(TransformationScope.afterCollectors == .afterProcessors)
        #expect(TransformationScope.allDispatchers == .allDestinations)
        #expect(TransformationScope.dispatchers(["Collect", "Trace"]) == .destinations(["Collect", "Trace"]))
        #expect(TransformationScope(json: "AFTERCOLLECTORS") == .afterProcessors)
        #expect(TransformationScope(json: "AllDispatchers") == .allDestinations)
        #expect(TransformationScope(json: "AfterProcessors") == .afterProcessors)
        #expect(TransformationScope(json: "alldestinations") == .allDestinations)
        #expect(TransformationScope(json: ["A", "B", "A"]) == .destinations(["A", "B"]))
        #expect(TransformationScope(json: "sometimes") == nil)
        #expect(TransformationScope(json: ["A", 1]) == nil)
    }
}
