import TelemetryKit
import TelemetryKitDefaultPrefix
import TelemetryKitTesting
import Testing

struct DefaultPrefixProcessorTests {
    let prefix = DefaultPrefixProcessor(eventPrefix: "MyApp.", parameterPrefix: "MyApp.")

    private func run(_ processor: DefaultPrefixProcessor, _ input: EventInput) async throws -> Event {
        try await ProcessorPipeline(processors: [processor], finalizer: .test).process(input)
    }

    @Test(arguments: [
        ("login", "MyApp.login"),
        ("Screen.shown", "MyApp.Screen.shown"),
        ("MyApp.login", "MyApp.login"),
        ("TelemetryDeck.Session.started", "TelemetryDeck.Session.started"),
        ("TelemetryDeck.Purchase.completed", "TelemetryDeck.Purchase.completed"),
    ])
    func prefixesAppEventNamesOnce(name: String, expected: String) async throws {
        let event = try await run(prefix, EventInput(name))
        #expect(event.type == expected)
    }

    @Test func prefixesCustomKeysButNotSDKKeysOrPrefixedKeys() async throws {
        let event = try await run(
            prefix,
            EventInput(
                "login",
                parameters: ["method": "email", "MyApp.count": 3, "TelemetryDeck.Device.platform": "Linux"]
            )
        )

        #expect(
            event.payload == [
                "MyApp.method": .string("email"),
                "MyApp.count": .int(3),
                "TelemetryDeck.Device.platform": .string("Linux"),
            ]
        )
    }

    @Test func eventAndParameterPrefixesAreIndependent() async throws {
        let processor = DefaultPrefixProcessor(eventPrefix: "Shop.", parameterPrefix: "p_")

        let event = try await run(processor, EventInput("Cart.opened", parameters: ["items": 2, "p_total": 9.5]))

        #expect(event.type == "Shop.Cart.opened")
        #expect(event.payload == ["p_items": .int(2), "p_total": .double(9.5)])
    }

    @Test func onlyTheEventNameIsPrefixedWithoutAParameterPrefix() async throws {
        let processor = DefaultPrefixProcessor(eventPrefix: "MyApp.", parameterPrefix: nil)

        let event = try await run(processor, EventInput("login", parameters: ["method": "email"]))

        #expect(event.type == "MyApp.login")
        #expect(event.payload == ["method": .string("email")])
    }

    @Test(arguments: [(nil, nil), ("", ""), (nil, ""), ("", nil)] as [(String?, String?)])
    func missingOrEmptyPrefixesChangeNothing(eventPrefix: String?, parameterPrefix: String?) async throws {
        let processor = DefaultPrefixProcessor(eventPrefix: eventPrefix, parameterPrefix: parameterPrefix)

        let event = try await run(processor, EventInput("login", parameters: ["method": "email"]))

        #expect(processor.eventPrefix == nil)
        #expect(processor.parameterPrefix == nil)
        #expect(event.type == "login")
        #expect(event.payload == ["method": .string("email")])
    }

    @Test func leavesSDKInternalEventsUntouched() async throws {
        let event = try await run(
            prefix,
            EventInput("Session.internal", parameters: ["count": 1], skipsReservedPrefixValidation: true)
        )

        #expect(event.type == "Session.internal")
        #expect(event.payload == ["count": .int(1)])
    }

    @Test func leavesContextMetadataAlone() async throws {
        let pipeline = ProcessorPipeline(
            processors: [
                ParameterAddingProcessor(key: "Custom.before", value: "metadata"), prefix,
                ParameterAddingProcessor(key: "Custom.after", value: "metadata"),
            ],
            finalizer: .test
        )

        let event = try await pipeline.process(EventInput("login", parameters: ["method": "email"]))

        #expect(
            event.payload == [
                "Custom.before": .string("metadata"),
                "Custom.after": .string("metadata"),
                "MyApp.method": .string("email"),
            ]
        )
    }

    @Test func aKeyWrittenWithThePrefixWinsACollisionAndTheLossIsLogged() async throws {
        let logger = RecordingLogger()
        await prefix.start(storage: InMemoryProcessorStorage(), logger: logger, emitter: RecordingEmitter())

        let event = try await run(prefix, EventInput("login", parameters: ["plan": "short", "MyApp.plan": "full"]))

        #expect(event.payload == ["MyApp.plan": .string("full")])
        #expect(
            logger.warnings == [
                "parameter 'plan' collides with 'MyApp.plan' once prefixed; kept the value of 'MyApp.plan'"
            ]
        )
        #expect(logger.entries.first?.eventName == "MyApp.login")
    }
}
