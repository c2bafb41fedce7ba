import TelemetryKit
import TelemetryKitDefaultParameters
import TelemetryKitDefaultPrefix
import TelemetryKitTesting
import Testing

struct DefaultParametersProcessorTests {
    let defaults = DefaultParametersProcessor(parameters: ["plan": "free", "source": "app", "level": 3])

    @Test func addsTheDefaultsToAnEventWithoutParameters() async throws {
        let pipeline = ProcessorPipeline(processors: [defaults], finalizer: .test)

        let event = try await pipeline.process(EventInput("Screen.shown"))

        #expect(event.payload == ["plan": .string("free"), "source": .string("app"), "level": .int(3)])
    }

    @Test func perEventParametersOverrideTheDefaults() async throws {
        let pipeline = ProcessorPipeline(processors: [defaults], finalizer: .test)

        let event = try await pipeline.process(
            EventInput("Checkout.completed", parameters: ["plan": "pro", "level": 7, "items": 2])
        )

        #expect(
            event.payload == [
                "plan": .string("pro"), "source": .string("app"), "level": .int(7), "items": .int(2),
            ]
        )
    }

    @Test func defaultsWinOverContextMetadataLikeEventParameters() async throws {
        let pipeline = ProcessorPipeline(
            processors: [
                ParameterAddingProcessor(key: "source", value: "metadata-before"),
                defaults,
                ParameterAddingProcessor(key: "plan", value: "metadata-after"),
                ParameterAddingProcessor(key: "Device.kind", value: "server"),
            ],
            finalizer: .test
        )

        let event = try await pipeline.process(EventInput("Screen.shown", parameters: ["level": 9]))

        #expect(
            event.payload == [
                "plan": .string("free"), "source": .string("app"), "level": .int(9), "Device.kind": .string("server"),
            ]
        )
    }

    @Test func defaultsAreCustomParametersThatTheParameterPrefixApplies() async throws {
        let pipeline = ProcessorPipeline(
            processors: [defaults, DefaultPrefixProcessor(eventPrefix: "MyApp.", parameterPrefix: "MyApp.")],
            finalizer: .test
        )

        let event = try await pipeline.process(EventInput("login", parameters: ["plan": "pro"]))

        #expect(event.type == "MyApp.login")
        #expect(
            event.payload == [
                "MyApp.plan": .string("pro"), "MyApp.source": .string("app"), "MyApp.level": .int(3),
            ]
        )
    }

    @Test func emptyDefaultsLeaveTheEventAlone() async throws {
        let pipeline = ProcessorPipeline(
            processors: [DefaultParametersProcessor(parameters: [:])],
            finalizer: .test
        )

        let event = try await pipeline.process(EventInput("Screen.shown", parameters: ["screen": "home"]))

        #expect(event.payload == ["screen": .string("home")])
    }
}
