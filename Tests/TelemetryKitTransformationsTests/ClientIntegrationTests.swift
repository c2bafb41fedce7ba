import TelemetryKit
import TelemetryKitTesting
import TelemetryKitTransformations
import Testing

/// Transformations in a real `TelemetryClient`, observed through spy transmitters.
@Suite struct ClientIntegrationTests {
    /// A client with destinations "A" and "B", each with its own spy and cache.
    struct TwoDestinations {
        let client: TelemetryClient
        let spyA = SpyEventTransmitter()
        let spyB = SpyEventTransmitter()
        let cacheA = InMemoryEventCache()
        let cacheB = InMemoryEventCache()
        let logger = RecordingLogger()

        init(
            _ config: TransformationConfiguration,
            destinationB: TransformationConfiguration = TransformationConfiguration(),
            storage: InMemoryProcessorStorage = InMemoryProcessorStorage()
        ) async {
            let clock = ManualClock()
            let policy = DeliveryPolicy(flushInterval: 3600, backoff: BackoffPolicy(jitter: 0))
            client = TelemetryClient(
                configuration: .init(appID: "APP"),
                destinations: [
                    Destination(id: "A", transmitter: spyA, cache: cacheA, policy: policy),
                    Destination(
                        id: "B",
                        transmitter: spyB,
                        cache: cacheB,
                        policy: policy,
                        transformations: destinationB.transformations(storage: storage, logger: logger, clock: clock)
                    ),
                ],
                transformations: config.transformations(storage: storage, logger: logger, clock: clock),
                storage: storage,
                logger: logger,
                clock: clock
            )
            await client.start()
        }
    }

    // MARK: The examples of spec/03

    @Test func normalizeWithOrder10RunsBeforeOrder100() async {
        var config = TransformationConfiguration()
        config.setTransformation(
            SetDataValuesSettingsBuilder(id: "tier").setConstant("VIP", to: .key("tier")).setScope(.afterCollectors)
                .setOrder(100)
        )
        config.setTransformation(
            LowercaseSettingsBuilder(id: "normalize")
                .lowercaseAllVariables()
                .setScope(.afterCollectors)
                .setOrder(10)  // runs before order: 100
        )
        let harness = await TestHarness.make(transformations: makeTransformations(config))
        await harness.client.send("Purchase", parameters: ["email": "Ada@Example.COM", "items": 3])
        await harness.client.flush()
        let event = harness.spy.deliveredEvents.first
        #expect(event?.type == "Purchase")
        #expect(event?.payload["email"] == "ada@example.com")
        #expect(event?.payload["items"] == 3)
        // Set after the lowercasing, so it keeps its capitals.
        #expect(event?.payload["tier"] == "VIP")
    }

    @Test func tagPurchaseOnlyOnPurchaseEvents() async {
        var config = TransformationConfiguration()
        config.setTransformation(
            SetDataValuesSettingsBuilder(id: "tag-purchase")
                .setConstant("high_value", to: .key("user_segment"))
                .setScope(.afterCollectors)
                .setConditions(
                    .just(
                        Condition.equals(
                            ignoreCase: true,
                            variable: "event_name",
                            target: "purchase"
                        )
                    )
                )
        )
        let harness = await TestHarness.make(transformations: makeTransformations(config))
        for name in ["purchase", "Screen.shown", "PURCHASE", "purchase.refunded"] {
            await harness.client.send(name)
        }
        await harness.client.flush()
        let segments = harness.spy.deliveredEvents.map {
            "\($0.type)=\($0.payload["user_segment"]?.stringValue ?? "-")"
        }
        #expect(segments == ["purchase=high_value", "Screen.shown=-", "PURCHASE=high_value", "purchase.refunded=-"])
    }

    @Test func copyEmail() async {
        var config = TransformationConfiguration()
        config.setTransformation(
            SetDataValuesSettingsBuilder(id: "copy-email")
                .setFrom(.key("raw_email"), to: .key("email"))
                .setScope(.afterCollectors)
        )
        let harness = await TestHarness.make(transformations: makeTransformations(config))
        await harness.client.send("Signup", parameters: ["raw_email": "ada@example.com"])
        await harness.client.send("Signup")
        await harness.client.flush()
        let payloads = harness.spy.deliveredEvents.map(\.payload)
        #expect(payloads.map { $0["email"] } == ["ada@example.com", nil])
        #expect(payloads.map { $0["raw_email"] } == ["ada@example.com", nil])
    }

    // MARK: Scopes with two destinations

    @Test func destinationScopeChangesOnlyThatDestination() async {
        var config = TransformationConfiguration()
        config.setTransformation(
            SetDataValuesSettingsBuilder(id: "only-a").setConstant("a", to: "marker").setScope(.destinations(["A"]))
        )
        let setup = await TwoDestinations(config)
        await setup.client.send("Event", parameters: ["n": 1])
        await setup.client.flush()
        #expect(setup.spyA.deliveredEvents.map(\.payload) == [["n": 1, "marker": "a"]])
        #expect(setup.spyB.deliveredEvents.map(\.payload) == [["n": 1]])
    }

    @Test func allDestinationsScopeChangesBoth() async throws {
        var config = TransformationConfiguration()
        config.setTransformation(
            SetDataValuesSettingsBuilder(id: "all").setConstant("x", to: "marker").setScope(.allDispatchers)
        )
        let setup = await TwoDestinations(config)
        await setup.client.send("Event", parameters: ["n": 1])
        #expect(try await setup.cacheA.peek(limit: 10).map(\.payload) == [["n": 1]])
        await setup.client.flush()
        #expect(setup.spyA.deliveredEvents.map(\.payload) == [["n": 1, "marker": "x"]])
        #expect(setup.spyB.deliveredEvents.map(\.payload) == [["n": 1, "marker": "x"]])
    }

    @Test func afterProcessorsScopeChangesWhatIsCached() async throws {
        var config = TransformationConfiguration()
        config.setTransformation(
            SetDataValuesSettingsBuilder(id: "cached").setConstant("c", to: "marker").setScope(.afterProcessors)
        )
        let setup = await TwoDestinations(config)
        await setup.client.send("Event", parameters: ["n": 1])
        #expect(try await setup.cacheA.peek(limit: 10).map(\.payload) == [["n": 1, "marker": "c"]])
        #expect(try await setup.cacheB.peek(limit: 10).map(\.payload) == [["n": 1, "marker": "c"]])
        await setup.client.flush()
        #expect(setup.spyB.deliveredEvents.map(\.payload) == [["n": 1, "marker": "c"]])
    }

    @Test func nilDropsForThatDestinationOnly() async {
        var config = TransformationConfiguration(transformers: [DropTransformer()])
        config.setTransformation(
            TransformationSettings(
                id: "drop-views",
                transformerID: "Drop",
                scope: .destinations(["A"]),
                conditions: .just(.startsWith(variable: "event_name", prefix: "View."))
            )
        )
        let setup = await TwoDestinations(config)
        await setup.client.send("View.shown")
        await setup.client.send("Purchase")
        await setup.client.flush()
        #expect(setup.spyA.deliveredEvents.map(\.type) == ["Purchase"])
        #expect(setup.spyB.deliveredEvents.map(\.type) == ["View.shown", "Purchase"])
        let stats = await setup.client.stats
        #expect(stats.destinations["A"]?.filtered == 1)
        #expect(stats.destinations["B"]?.filtered == 0)
        #expect(stats.filtered == 0)
    }

    @Test func afterProcessorsDropKeepsTheEventOutOfEveryCache() async {
        var config = TransformationConfiguration(transformers: [DropTransformer()])
        config.setTransformation(
            TransformationSettings(
                id: "drop-debug",
                transformerID: "Drop",
                conditions: .just(.isDefined(variable: "debug"))
            )
        )
        let setup = await TwoDestinations(config)
        await setup.client.send("Event", parameters: ["debug": true])
        await setup.client.send("Event", parameters: ["n": 2])
        await setup.client.flush()
        #expect(setup.spyA.deliveredEvents.map(\.payload) == [["n": 2]])
        #expect(setup.spyB.deliveredEvents.map(\.payload) == [["n": 2]])
        #expect(await setup.client.stats.filtered == 1)
    }

    @Test func destinationOwnTransformationsApplyToItOnly() async {
        var destinationB = TransformationConfiguration()
        destinationB.setTransformation(LowercaseSettingsBuilder(id: "b-lower"))
        let setup = await TwoDestinations(TransformationConfiguration(), destinationB: destinationB)
        await setup.client.send("Event", parameters: ["city": "Paris"])
        await setup.client.flush()
        #expect(setup.spyA.deliveredEvents.map(\.payload) == [["city": "Paris"]])
        #expect(setup.spyB.deliveredEvents.map(\.payload) == [["city": "paris"]])
    }

    // MARK: PersistDataValue across clients

    @Test func persistedValuesAcrossANewClient() async {
        var config = TransformationConfiguration()
        for (id, expiry) in [("keep", PersistenceExpiry.forever), ("launch", .untilRestart)] {
            config.setTransformation(
                PersistDataValueSettingsBuilder(id: id)
                    .persist(.key("plan"), as: .key("\(id)_plan"))
                    .setExpiry(expiry)
                    .setConditions(.just(.equals(variable: "event_name", target: "login")))
            )
        }
        let storage = InMemoryProcessorStorage()
        let first = await TwoDestinations(config, storage: storage)
        await first.client.send("login", parameters: ["plan": "pro"])
        await first.client.send("view")
        await first.client.shutdown()
        #expect(first.spyA.deliveredEvents.last?.payload == ["keep_plan": "pro", "launch_plan": "pro"])

        let second = await TwoDestinations(config, storage: storage)
        await second.client.send("view")
        await second.client.flush()
        #expect(second.spyA.deliveredEvents.map(\.payload) == [["keep_plan": "pro"]])
    }
}
