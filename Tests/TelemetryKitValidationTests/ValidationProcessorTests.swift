import TelemetryKit
import TelemetryKitTesting
import TelemetryKitValidation
import Testing

struct ValidationProcessorTests {
    /// A started processor, its pipeline and the logger it reports to.
    private func makeValidation() async -> (ProcessorPipeline, RecordingLogger) {
        let logger = RecordingLogger()
        let validation = ValidationProcessor()
        await validation.start(storage: InMemoryProcessorStorage(), logger: logger, emitter: RecordingEmitter())
        return (ProcessorPipeline(processors: [validation], finalizer: .test), logger)
    }

    @Test func warnsAboutAnEventNameInTheReservedNamespaceAndKeepsTheEvent() async throws {
        let (pipeline, logger) = await makeValidation()

        let event = try await pipeline.process(EventInput("TelemetryDeck.custom", parameters: ["screen": "home"]))

        #expect(event.type == "TelemetryDeck.custom")
        #expect(event.payload == ["screen": .string("home")])
        #expect(
            logger.warnings == [
                "event name 'TelemetryDeck.custom' uses the reserved prefix 'TelemetryDeck.'; "
                    + "SDK dashboards will read it as an SDK event"
            ]
        )
        #expect(logger.entries.map(\.eventName) == ["TelemetryDeck.custom"])
    }

    @Test func theDurationParameterOfDurationEventsIsNotReported() async throws {
        let (pipeline, logger) = await makeValidation()

        let event = try await pipeline.process(
            EventInput("Checkout", parameters: ["TelemetryDeck.Signal.durationInSeconds": 1.5], floatValue: 1.5)
        )

        #expect(event.payload == ["TelemetryDeck.Signal.durationInSeconds": .double(1.5)])
        #expect(logger.warnings.isEmpty)
    }

    @Test func warnsAboutAParameterKeyInTheReservedNamespaceAndKeepsIt() async throws {
        let (pipeline, logger) = await makeValidation()

        let event = try await pipeline.process(
            EventInput("Screen.shown", parameters: ["TelemetryDeck.Device.platform": "Mine", "screen": "home"])
        )

        #expect(event.payload == ["TelemetryDeck.Device.platform": .string("Mine"), "screen": .string("home")])
        #expect(
            logger.warnings == [
                "parameter 'TelemetryDeck.Device.platform' uses the reserved prefix 'TelemetryDeck.'; "
                    + "it may replace a value the SDK sends"
            ]
        )
    }

    @Test(arguments: [
        "type", "appID", "clientUser", "sessionID", "receivedAt", "payload", "floatValue", "isTestMode", "id",
        "Type", "APPID", "ID", "clientuser",
        // TelemetryDeck v3's legacy keys.
        "newSessionBegan", "platform", "systemVersion", "majorSystemVersion", "majorMinorSystemVersion",
        "appVersion", "buildNumber", "isSimulator", "isDebug", "isTestFlight", "isAppStore", "modelName",
        "architecture", "operatingSystem", "targetEnvironment", "locale", "region", "appLanguage",
        "preferredLanguage", "telemetryClientVersion", "extensionIdentifier", "PLATFORM", "appversion",
    ])
    func warnsAboutReservedParameterNamesAndKeepsThem(key: String) async throws {
        let (pipeline, logger) = await makeValidation()

        let event = try await pipeline.process(EventInput("Screen.shown", parameters: [key: "value"]))

        #expect(event.payload == [key: .string("value")])
        #expect(
            logger.warnings == [
                "parameter '\(key)' is a reserved name; "
                    + "it collides with an event field or a legacy TelemetryDeck key of that name"
            ]
        )
    }

    @Test func acceptsOrdinaryNamesAndKeysSilently() async throws {
        let (pipeline, logger) = await makeValidation()

        let event = try await pipeline.process(
            EventInput(
                "Screen.shown",
                parameters: [
                    "typeface": "serif", "identifier": "a", "myType": "b", "i": 1, "session": "s",
                    "telemetrydeck.lower": "c", "MyApp.type": "d", "payloads": 2,
                    // A reserved name's length, one byte off (also in its last bytes, and a
                    // non-ASCII byte), or a non-letter where a reserved name has a letter.
                    "typo": 3, "appIE": 4, "locals": 5, "régio": 6, "majorMinorSystemVersiom": 7,
                    "telemetryClientVersiom": 8, "[ype": 9,
                ]
            )
        )

        #expect(event.payload.count == 15)
        #expect(logger.entries.isEmpty)
    }

    @Test func warnsOncePerDistinctNameOrKey() async throws {
        let (pipeline, logger) = await makeValidation()

        for _ in 0..<3 {
            _ = try await pipeline.process(EventInput("TelemetryDeck.a", parameters: ["type": "x"]))
        }
        _ = try await pipeline.process(EventInput("TelemetryDeck.b", parameters: ["type": "x", "id": 1]))
        // The same text as an event name and as a key are two different findings.
        _ = try await pipeline.process(EventInput("Screen.shown", parameters: ["TelemetryDeck.a": 1]))

        #expect(logger.warnings.count == 5)
        #expect(logger.warnings.filter { $0.contains("'TelemetryDeck.a'") }.count == 2)
        #expect(logger.warnings.filter { $0.contains("'type'") }.count == 1)
        #expect(logger.warnings.filter { $0.contains("'id'") }.count == 1)
        #expect(logger.warnings.filter { $0.contains("'TelemetryDeck.b'") }.count == 1)
    }

    @Test func sdkInternalEventsSkipOnlyTheNamespaceCheck() async throws {
        let (pipeline, logger) = await makeValidation()

        let event = try await pipeline.process(
            EventInput(
                "TelemetryDeck.Session.started",
                parameters: ["TelemetryDeck.Retention.totalSessionsCount": 4, "type": "x"],
                skipsReservedPrefixValidation: true
            )
        )

        #expect(event.type == "TelemetryDeck.Session.started")
        #expect(event.payload.count == 2)
        // The namespace is theirs; the list of reserved names applies to them too (as in v3).
        #expect(
            logger.warnings == [
                "parameter 'type' is a reserved name; "
                    + "it collides with an event field or a legacy TelemetryDeck key of that name"
            ]
        )
    }

    @Test(arguments: ["platform", "appVersion", "Type", "locale"])
    func warnsOnceAboutAReservedEventNameAndKeepsTheEvent(name: String) async throws {
        let (pipeline, logger) = await makeValidation()

        let first = try await pipeline.process(EventInput(name, parameters: ["screen": "home"]))
        _ = try await pipeline.process(EventInput(name))

        #expect(first.type == name)
        #expect(first.payload == ["screen": .string("home")])
        #expect(
            logger.warnings == [
                "event name '\(name)' is a reserved name; "
                    + "it collides with an event field or a legacy TelemetryDeck key of that name"
            ]
        )
        #expect(logger.entries.map(\.level) == [.error])
    }

    @Test func stopsReportingAfterTheLimitWithOneNotice() async throws {
        let (pipeline, logger) = await makeValidation()
        let limit = ValidationProcessor.maximumReportedNames

        for index in 0..<(limit + 5) {
            _ = try await pipeline.process(EventInput("TelemetryDeck.event\(index)"))
        }

        #expect(logger.warnings.count == limit + 1)
        #expect(
            logger.warnings.last == "more than \(limit) reserved names used; further ones are not reported"
        )
    }
}

/// The processor inside a real `TelemetryClient`: warnings go to the client's logger.
struct ValidationClientTests {
    @Test func warningsReachTheClientLoggerAndEventsAreDelivered() async throws {
        let harness = await TestHarness.make(processors: [ValidationProcessor()])

        await harness.client.send(EventInput("Screen.shown", parameters: ["type": "a"]))
        await harness.client.send(EventInput("Screen.shown", parameters: ["type": "b"]))
        await harness.client.flush()

        #expect(harness.spy.deliveredEvents.map { $0.payload["type"] } == [.string("a"), .string("b")])
        #expect(
            harness.logger.warnings.filter { $0.hasPrefix("parameter 'type'") } == [
                "parameter 'type' is a reserved name; "
                    + "it collides with an event field or a legacy TelemetryDeck key of that name"
            ]
        )
    }
}
