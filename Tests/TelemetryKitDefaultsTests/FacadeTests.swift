import Foundation
import TelemetryKitDefaults
import TelemetryKitSupport
import TelemetryKitTesting
import Testing

/// Every test that touches the global `Telemetry` facade lives in this serialized suite.
/// Each test gets its own data directory, removed when the test ends.
@Suite(.serialized)
final class FacadeTests {
    let config = Telemetry.Config(
        appID: "YOUR-APP-ID",
        namespace: "YOUR-NAMESPACE",
        dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("telemetrykit-facade-\(UUID())")
    )

    deinit {
        if let directory = config.dataDirectory { try? FileManager.default.removeItem(at: directory) }
    }

    func initialize(
        processors: [any EventProcessor],
        spy: SpyEventTransmitter,
        cache: InMemoryEventCache = InMemoryEventCache(),
        storage: any ProcessorStorage = InMemoryProcessorStorage(),
        logger: any Logging = RecordingLogger()
    ) async throws {
        try await Telemetry.initialize(
            configuration: config,
            processors: processors,
            cache: cache,
            transmitter: spy,
            logger: logger,
            storage: storage
        )
    }

    @Test func spyTestFromTheSpec() async throws {
        await Telemetry.terminate()
        let spy = SpyEventTransmitter()
        try await Telemetry.initialize(
            configuration: config,
            processors: [MyProcessor()],
            cache: InMemoryEventCache(),
            transmitter: spy
        )
        await Telemetry.event("test.event")
        await Telemetry.flush()
        let transmitted = await spy.transmittedEvents
        #expect(transmitted.contains { $0.type == "test.event" })
        #expect(transmitted.first?.appID == "YOUR-APP-ID")
        await Telemetry.terminate()
    }

    @Test func abTestProcessorAddsTheVariant() async throws {
        await Telemetry.terminate()
        let spy = SpyEventTransmitter()
        try await initialize(processors: Telemetry.defaultProcessors() + [ABTestProcessor(variant: "B")], spy: spy)
        await Telemetry.event("Screen.shown", parameters: ["screen": "home"])
        await Telemetry.flush()
        let event = try #require(spy.deliveredEvents.first { $0.type == "Screen.shown" })
        #expect(event.payload["ABTest.variant"] == .string("B"))
        #expect(event.payload["screen"] == .string("home"))
        await Telemetry.terminate()
    }

    @Test func processorInsertedAtAPosition() async throws {
        await Telemetry.terminate()
        var processors = Telemetry.defaultProcessors()
        processors.insert(ABTestProcessor(variant: "B"), at: 0)
        processors.append(ABTestProcessor(variant: "C"))
        let spy = SpyEventTransmitter()
        try await initialize(processors: processors, spy: spy)
        await Telemetry.event("x")
        await Telemetry.flush()
        // The later processor wins on the same key.
        #expect(spy.deliveredEvents.first { $0.type == "x" }?.payload["ABTest.variant"] == .string("C"))
        await Telemetry.terminate()
    }

    @Test func internalScreenFilterDropsInternalEvents() async throws {
        await Telemetry.terminate()
        let spy = SpyEventTransmitter()
        try await initialize(processors: [InternalScreenFilter()], spy: spy)
        await Telemetry.event("Internal.debugMenu")
        await Telemetry.event("Settings.shown")
        await Telemetry.event("Internal.featureFlags")
        await Telemetry.flush()
        #expect(spy.deliveredEvents.map(\.type) == ["Settings.shown"])
        #expect(await Telemetry.stats.filtered == 2)
        await Telemetry.terminate()
    }

    @Test func sanitizerReplacesSpaces() async throws {
        await Telemetry.terminate()
        let spy = SpyEventTransmitter()
        try await initialize(processors: [ScreenNameSanitizer()], spy: spy)
        await Telemetry.event("Main Screen")
        await Telemetry.flush()
        #expect(spy.deliveredEvents.map(\.type) == ["Main.Screen"])
        await Telemetry.terminate()
    }

    @Test func subscriptionTierSurvivesAcrossTwoClients() async throws {
        await Telemetry.terminate()
        let storage = InMemoryProcessorStorage()
        let first = SubscriptionTierProcessor()
        let spy1 = SpyEventTransmitter()
        try await initialize(processors: [first], spy: spy1, storage: storage)
        await Telemetry.event("Before")
        await Telemetry.flush()
        await first.updateTier("premium")
        await Telemetry.event("After")
        await Telemetry.flush()
        #expect(spy1.deliveredEvents.map { $0.payload["Subscription.tier"] } == [.string("free"), .string("premium")])
        await Telemetry.terminate()

        let spy2 = SpyEventTransmitter()
        try await initialize(processors: [SubscriptionTierProcessor()], spy: spy2, storage: storage)
        await Telemetry.event("NextLaunch")
        await Telemetry.flush()
        #expect(spy2.deliveredEvents.first?.payload["Subscription.tier"] == .string("premium"))
        await Telemetry.terminate()
    }

    @Test func watchdogEventRunsThroughTheWholePipelineIncludingItself() async throws {
        await Telemetry.terminate()
        let watchdog = WatchdogProcessor()
        let spy = SpyEventTransmitter()
        try await initialize(processors: [watchdog, ABTestProcessor(variant: "A")], spy: spy)
        await watchdog.reportAnomaly("memory spike")
        await Telemetry.flush()
        let event = try #require(spy.deliveredEvents.first)
        #expect(event.type == "Watchdog.anomalyDetected")
        #expect(event.payload["description"] == .string("memory spike"))
        #expect(event.payload["ABTest.variant"] == .string("A"))
        #expect(await watchdog.seen == ["Watchdog.anomalyDetected"])
        await Telemetry.terminate()
    }

    @Test func removingAProcessorByType() async throws {
        await Telemetry.terminate()
        let processors = (Telemetry.defaultProcessors() + [InternalScreenFilter(), ABTestProcessor(variant: "B")])
            .filter { $0 is InternalScreenFilter == false }
        #expect(processors.contains { $0 is InternalScreenFilter } == false)
        #expect(processors.contains { $0 is ABTestProcessor })
        let spy = SpyEventTransmitter()
        try await initialize(processors: processors, spy: spy)
        await Telemetry.event("Internal.kept")
        await Telemetry.flush()
        #expect(spy.deliveredEvents.filter { !$0.type.hasPrefix("TelemetryDeck.") }.map(\.type) == ["Internal.kept"])
        await Telemetry.terminate()
    }

    @Test func awaitedEventReturnsOnlyOnceCached() async throws {
        await Telemetry.terminate()
        let spy = SpyEventTransmitter()
        let cache = InMemoryEventCache()
        try await initialize(processors: [ABTestProcessor(variant: "B")], spy: spy, cache: cache)
        for n in 1...20 {
            await Telemetry.event("Awaited", parameters: ["n": n], floatValue: 1, customUserID: "u")
            #expect(await cache.count() == n)
        }
        #expect(spy.deliveredEvents.isEmpty)
        await Telemetry.terminate()
    }

    @Test func signalFromSynchronousCodeIsOrderedWithAwaitedEvents() async throws {
        await Telemetry.terminate()
        let spy = SpyEventTransmitter()
        try await initialize(processors: [], spy: spy)
        func buttonAction(_ n: Int) {
            Telemetry.signal("Button.tapped", parameters: ["n": n])
        }
        buttonAction(1)
        await Telemetry.event("Awaited")
        buttonAction(2)
        await Telemetry.flush()
        #expect(spy.deliveredEvents.map(\.type) == ["Button.tapped", "Awaited", "Button.tapped"])
        await Telemetry.terminate()
    }

    @Test func eventsBeforeInitializeArriveInOrderWithTheirTimestamps() async throws {
        await Telemetry.terminate()
        let early = Date(timeIntervalSince1970: 1_700_000_000.5)
        for n in 0..<5 {
            Telemetry.signal(EventInput("Early", parameters: ["n": n], timestamp: early.addingTimeInterval(Double(n))))
        }
        let spy = SpyEventTransmitter()
        try await initialize(processors: [], spy: spy)
        await Telemetry.event("AfterInit")
        await Telemetry.flush()
        let events = spy.deliveredEvents
        #expect(events.map(\.type) == ["Early", "Early", "Early", "Early", "Early", "AfterInit"])
        #expect(events.prefix(5).map { $0.payload["n"] } == [0, 1, 2, 3, 4].map { PayloadValue.int($0) })
        #expect(
            events.prefix(5).map(\.receivedAt.timeIntervalSince1970) == (0..<5).map { 1_700_000_000.5 + Double($0) }
        )
        await Telemetry.terminate()
    }

    @Test func overflowBeforeInitializeIsCounted() async throws {
        await Telemetry.terminate()
        let limit = Telemetry.preInitializeBufferLimit
        #expect(limit == 10_000)
        for n in 0..<(limit + 10) {
            Telemetry.signal(EventInput("Early", parameters: ["n": n]))
        }
        #expect(Telemetry.droppedBeforeInitializeCount == 10)
        let spy = SpyEventTransmitter()
        let logger = RecordingLogger()
        try await initialize(processors: [], spy: spy, logger: logger)
        await Telemetry.flush()
        let numbers = spy.deliveredEvents.compactMap { event -> Int64? in
            if case .int(let n) = event.payload["n"] { return n }
            return nil
        }
        #expect(numbers == (10..<(limit + 10)).map(Int64.init))
        #expect(await Telemetry.stats.droppedBeforeStart == 10)
        #expect(logger.warnings.contains { $0.contains("10 event(s) sent before initialize were dropped") })
        await Telemetry.terminate()
        #expect(Telemetry.droppedBeforeInitializeCount == 0, "terminate starts the count afresh")
    }

    @Test func secondInitializeIsIgnoredWithAWarning() async throws {
        await Telemetry.terminate()
        let spy = SpyEventTransmitter()
        let logger = RecordingLogger()
        try await initialize(processors: [ABTestProcessor(variant: "first")], spy: spy, logger: logger)
        let other = SpyEventTransmitter()
        try await initialize(processors: [ABTestProcessor(variant: "second")], spy: other, logger: logger)
        #expect(logger.warnings.contains { $0.contains("initialize was called again") })
        await Telemetry.event("x")
        await Telemetry.flush()
        #expect(spy.deliveredEvents.first?.payload["ABTest.variant"] == .string("first"))
        #expect(other.deliveredEvents.isEmpty)
        await Telemetry.terminate()
    }

    @Test func userIdentifierThroughTheFacade() async throws {
        await Telemetry.terminate()
        let spy = SpyEventTransmitter()
        try await initialize(processors: [], spy: spy)
        await Telemetry.setUserIdentifier("user@example.com")
        await Telemetry.event("x")
        await Telemetry.flush()
        #expect(spy.deliveredEvents.first?.clientUser == SHA256Hex.digest("user@example.com"))
        await Telemetry.terminate()
    }

    @Test(arguments: [
        ("", "ns", "appID"),
        ("   ", "ns", "appID"),
        ("APP", "", "namespace"),
        ("APP", " \n", "namespace"),
    ])
    func blankConfigurationFieldsAreTypedErrors(appID: String, namespace: String, field: String) async throws {
        await Telemetry.terminate()
        let config = Telemetry.Config(appID: appID, namespace: namespace)
        do {
            try await Telemetry.initialize(configuration: config, processors: [], transmitter: SpyEventTransmitter())
            Issue.record("expected an error for a blank \(field)")
        } catch {
            #expect(error.code == .invalidConfiguration)
            #expect(error.description.contains("Telemetry.Config.\(field) is blank"))
        }
        #expect(Telemetry.client == nil)
    }

    @Test func multipleDestinationsThroughTheFacade() async throws {
        await Telemetry.terminate()
        struct Tag: EventTransformation {
            let id = "tag"
            let scope = TransformationScope.destinations(["B"])
            func transform(_ event: Event, destination: String?) async -> Event? {
                var event = event
                event.payload["seenBy"] = .string(destination ?? "none")
                return event
            }
        }
        let ingest = SpyEventTransmitter()
        let second = SpyEventTransmitter()
        let secondCache = InMemoryEventCache()
        try await Telemetry.initialize(
            configuration: config,
            processors: [],
            cache: InMemoryEventCache(),
            transmitter: ingest,
            logger: RecordingLogger(),
            storage: InMemoryProcessorStorage(),
            destinations: [Destination(id: "B", transmitter: second, cache: secondCache)],
            transformations: [Tag()]
        )
        await Telemetry.event("Both")
        #expect(await secondCache.count() == 1)
        await Telemetry.flush()
        #expect(ingest.deliveredEvents.map(\.type) == ["Both"])
        #expect(second.deliveredEvents.map(\.type) == ["Both"])
        #expect(ingest.deliveredEvents.first?.payload["seenBy"] == nil)
        #expect(second.deliveredEvents.first?.payload["seenBy"] == .string("B"))
        let stats = await Telemetry.stats
        #expect(stats.destinations[Telemetry.defaultDestinationID]?.delivered == 1)
        #expect(stats.destinations["B"]?.delivered == 1)
        await Telemetry.terminate()
    }

    @Test func defaultDurableCacheAndStorageSurviveARestart() async throws {
        await Telemetry.terminate()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("telemetrykit-restart-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        var config = Telemetry.Config(appID: "RESTART-APP", namespace: "ns", dataDirectory: directory)
        config.deliveryPolicy = DeliveryPolicy(flushInterval: 3600)
        config.shutdownTimeout = 0.05
        let offline = SpyEventTransmitter()
        offline.respond { _ in .retry(after: nil) }
        try await Telemetry.initialize(configuration: config, transmitter: offline, logger: RecordingLogger())
        for n in 0..<3 {
            await Telemetry.event("Queued", parameters: ["n": n])
        }
        await Telemetry.terminate()
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("events-ingest.sqlite").path))
        #expect(FileManager.default.fileExists(atPath: directory.appendingPathComponent("TelemetryKit.plist").path))
        #expect(offline.deliveredEvents.isEmpty)

        let online = SpyEventTransmitter()
        try await Telemetry.initialize(configuration: config, transmitter: online, logger: RecordingLogger())
        await Telemetry.flush()
        let users = Set(online.deliveredEvents.map(\.clientUser))
        #expect(users.count == 1, "the persisted per-install user id is the same after the restart")
        #expect(
            online.deliveredEvents.filter { $0.type == "Queued" }.compactMap { event -> Int64? in
                if case .int(let n) = event.payload["n"] { return n }
                return nil
            } == [0, 1, 2]
        )
        await Telemetry.terminate()
    }

    @Test func presetsDurationsAndOptOutThroughTheFacade() async throws {
        await Telemetry.terminate()
        let spy = SpyEventTransmitter()
        let storage = InMemoryProcessorStorage()
        let logger = RecordingLogger()
        let clock = ManualClock()
        try await Telemetry.initialize(
            configuration: config,
            processors: [],
            cache: InMemoryEventCache(),
            transmitter: spy,
            logger: logger,
            storage: storage,
            clock: clock
        )
        await Telemetry.navigationPathChanged(from: "onboarding", to: "home")
        await Telemetry.navigationPathChanged(to: "settings")
        await Telemetry.userRatingSubmitted(rating: 11)
        await Telemetry.startDurationEvent("Facade.duration", parameters: ["step": "start"])
        clock.advance(by: 0.1)
        await Telemetry.stopAndSendDurationEvent("Facade.duration")
        await Telemetry.flush()
        let events = spy.deliveredEvents
        #expect(
            events.map(\.type) == [
                "TelemetryDeck.Navigation.pathChanged", "TelemetryDeck.Navigation.pathChanged", "Facade.duration",
            ]
        )
        #expect(events[1].payload["TelemetryDeck.Navigation.identifier"] == .string("home -> settings"))
        #expect(events[2].floatValue == 0.1)
        #expect(events[2].payload["step"] == .string("start"))
        #expect(logger.warnings == ["userRatingSubmitted: rating 11 is outside 0...10; the event was not sent"])

        await Telemetry.setAnalyticsDisabled(true)
        Telemetry.signal("Dropped")
        await Telemetry.event("DroppedToo")
        await Telemetry.flush()
        #expect(spy.deliveredEvents.count == 3)
        #expect(Telemetry.client?.droppedWhileAnalyticsDisabled == 2)
        await Telemetry.terminate()

        // The next launch reads the choice from storage.
        try await Telemetry.initialize(
            configuration: config,
            processors: [],
            cache: InMemoryEventCache(),
            transmitter: spy,
            storage: storage
        )
        #expect(await Telemetry.isAnalyticsDisabled)
        await Telemetry.setAnalyticsDisabled(false)
        await Telemetry.terminate()
    }

    @Test func optOutBeforeInitializeDiscardsBufferedEvents() async throws {
        await Telemetry.terminate()
        let storage = InMemoryProcessorStorage()
        Telemetry.signal("BufferedBeforeOptOut")
        await Telemetry.setAnalyticsDisabled(true)
        Telemetry.signal("WhileDisabled")
        #expect(await Telemetry.isAnalyticsDisabled)
        await Telemetry.setAnalyticsDisabled(false)
        Telemetry.signal("AfterOptIn")
        let spy = SpyEventTransmitter()
        try await initialize(processors: [], spy: spy, storage: storage)
        await Telemetry.flush()
        #expect(spy.deliveredEvents.map(\.type) == ["AfterOptIn"])
        #expect(await storage.bool(forKey: TelemetryStorageKeys.analyticsDisabled) == false)
        await Telemetry.terminate()
    }

    /// What the facade gathers before `initialize` (the last navigation destination, running
    /// durations) is handed to the client: one owner, nothing kept twice.
    @Test func navigationAndDurationsStartedBeforeInitializeContinueInTheClient() async throws {
        await Telemetry.terminate()
        await Telemetry.navigationPathChanged(to: "onboarding")
        await Telemetry.startDurationEvent("Setup.duration", parameters: ["step": "1"])
        await Telemetry.startDurationEvent("Cancelled.duration")
        await Telemetry.cancelDurationEvent("Cancelled.duration")
        let spy = SpyEventTransmitter()
        try await initialize(processors: [], spy: spy)

        await Telemetry.navigationPathChanged(to: "home")
        await Telemetry.stopAndSendDurationEvent("Setup.duration")
        await Telemetry.stopAndSendDurationEvent("Cancelled.duration")  // not running: nothing sent
        await Telemetry.flush()

        let events = spy.deliveredEvents
        #expect(
            events.map(\.type) == [
                "TelemetryDeck.Navigation.pathChanged", "TelemetryDeck.Navigation.pathChanged", "Setup.duration",
            ]
        )
        #expect(events[0].payload["TelemetryDeck.Navigation.sourcePath"] == .string(""))
        #expect(events[0].payload["TelemetryDeck.Navigation.destinationPath"] == .string("onboarding"))
        #expect(events[1].payload["TelemetryDeck.Navigation.sourcePath"] == .string("onboarding"))
        #expect(events[1].payload["TelemetryDeck.Navigation.destinationPath"] == .string("home"))
        #expect(events[2].payload["step"] == .string("1"))
        #expect(events[2].floatValue.map { $0 >= 0 } == true)
        await Telemetry.terminate()
    }
}
