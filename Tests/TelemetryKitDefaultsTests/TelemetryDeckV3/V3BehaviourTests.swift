import Foundation
import TelemetryKitDefaults
import TelemetryKitTesting
import Testing

/// A processor written the way v3's documentation writes one: it reads a parameter and a
/// metadata value back with plain casts and branches on them. With boxed values the casts
/// fail silently and the event goes out unchanged.
struct V3PlanTierProcessor: EventProcessor {
    func process(
        _ input: EventInput,
        context: EventContext,
        next: @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event {
        var input = input
        var context = context
        if input.parameters["plan"] as? String == "pro", let seats = input.parameters["seats"] as? Int, seats >= 10 {
            input.parameters["tier"] = "enterprise"
        }
        if context.metadata["App.beta"] as? Bool == true {
            context.addParameter("App.channel", value: "beta")
        }
        if let installed = input.parameters["installedAt"] as? Date {
            input.parameters["installedYear"] = Calendar(identifier: .gregorian).component(.year, from: installed)
        }
        if input.parameters["skip"] as? Bool == true {
            throw ProcessorError.eventFiltered
        }
        return try await next(input, context)
    }
}

/// Adds the metadata `V3PlanTierProcessor` reads.
struct V3BetaFlagProcessor: EventProcessor {
    func process(
        _ input: EventInput,
        context: EventContext,
        next: @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event {
        var context = context
        context.addParameter("App.beta", value: true)
        return try await next(input, context)
    }
}

/// v3's behaviour around timing, order and errors, through the facade. Part of the serialized
/// facade suite (they share the global `Telemetry`).
extension FacadeTests {
    /// The default processors, as `initialize(appID:namespace:)` sets them up.
    private var v3Processors: [any EventProcessor] {
        Telemetry.defaultProcessors(for: config)
    }

    @Test func aV3ProcessorBranchesOnParametersAndMetadataReadBack() async throws {
        await Telemetry.terminate()
        let spy = SpyEventTransmitter()
        try await initialize(processors: [V3BetaFlagProcessor(), V3PlanTierProcessor()], spy: spy)

        await Telemetry.event("Upgrade", parameters: ["plan": "pro", "seats": 12])
        await Telemetry.event("Upgrade", parameters: ["plan": "pro", "seats": 3])
        await Telemetry.event(
            "Installed",
            parameters: ["installedAt": Date(timeIntervalSince1970: 1_750_000_000)]
        )
        await Telemetry.event("Hidden", parameters: ["skip": true])
        await Telemetry.flush()

        let events = spy.deliveredEvents.filter { !$0.type.hasPrefix("TelemetryDeck.") }
        #expect(events.map(\.type) == ["Upgrade", "Upgrade", "Installed"])
        #expect(events[0].payload["tier"] == .string("enterprise"))
        #expect(events[1].payload["tier"] == nil)
        #expect(events.allSatisfy { $0.payload["App.channel"] == .string("beta") })
        #expect(events[2].payload["installedYear"] == .int(2025))
        await Telemetry.terminate()
    }

    @Test func initializeReturnsWithTheEarlyEventsCached() async throws {
        await Telemetry.terminate()
        let spy = SpyEventTransmitter()
        let cache = InMemoryEventCache()
        Telemetry.signal("Early.signal")
        await Telemetry.event("Early.awaited", parameters: ["n": 1])

        try await initialize(processors: v3Processors, spy: spy, cache: cache)

        // No flush, no waiting: v3 replays the early events into the cache before returning.
        let cached = try await cache.peek(limit: 100).map(\.type)
        #expect(
            cached == [
                "TelemetryDeck.Acquisition.newInstallDetected", "TelemetryDeck.Session.started", "Early.signal",
                "Early.awaited",
            ]
        )
        await Telemetry.terminate()
    }

    @Test func newSessionReturnsWithItsSessionStartedCached() async throws {
        await Telemetry.terminate()
        let spy = SpyEventTransmitter()
        let cache = InMemoryEventCache()
        try await initialize(processors: v3Processors, spy: spy, cache: cache)
        let firstSession = await Telemetry.sessionID

        let newSession = await Telemetry.newSession()

        let cached = try await cache.peek(limit: 100)
        #expect(cached.map(\.type).filter { $0 == "TelemetryDeck.Session.started" }.count == 2)
        #expect(cached.last?.type == "TelemetryDeck.Session.started")
        #expect(cached.last?.sessionID == newSession?.uuidString)
        #expect(newSession != firstSession)
        await Telemetry.terminate()
    }

    @Test func nothingEmittedIsLostToATerminateThatFollows() async throws {
        await Telemetry.terminate()
        let spy = SpyEventTransmitter()
        let logger = RecordingLogger()
        try await initialize(processors: v3Processors, spy: spy, logger: logger)

        let newSession = await Telemetry.newSession()
        await Telemetry.terminate()

        let started = spy.deliveredEvents.filter { $0.type == "TelemetryDeck.Session.started" }
        #expect(started.count == 2)
        #expect(started.last?.sessionID == newSession?.uuidString)
        #expect(logger.warnings.filter { $0.contains("dropped") }.isEmpty, "\(logger.warnings)")
    }

    @Test func awaitedPresetsReturnWithTheirEventCached() async throws {
        await Telemetry.terminate()
        let spy = SpyEventTransmitter()
        let cache = InMemoryEventCache()
        try await initialize(processors: v3Processors, spy: spy, cache: cache)

        await Telemetry.navigationPathChanged(to: "settings")
        #expect(try await cache.peek(limit: 100).last?.type == "TelemetryDeck.Navigation.pathChanged")
        await Telemetry.leadStarted(leadID: "newsletter-42")
        #expect(try await cache.peek(limit: 100).last?.type == "TelemetryDeck.Acquisition.leadStarted")
        let error = NSError(domain: "test", code: 42, userInfo: [NSLocalizedDescriptionKey: "Test error"])
        await Telemetry.errorOccurred(identifiableError: error.with(id: "Test.failed"))
        let errorEvent = try #require(try await cache.peek(limit: 100).last)
        #expect(errorEvent.type == "TelemetryDeck.Error.occurred")
        #expect(errorEvent.payload["TelemetryDeck.Error.message"] == .string("Test error"))
        #expect(errorEvent.payload["TelemetryDeck.Error.id"] == .string("Test.failed"))
        await Telemetry.paywallShown(reason: "onboarding")
        #expect(try await cache.peek(limit: 100).last?.type == "TelemetryDeck.Revenue.paywallShown")
        await Telemetry.terminate()
    }

    @Test func initializeErrorsMatchAsInV3() async throws {
        await Telemetry.terminate()
        #expect(TelemetryError.Code.invalidConfiguration.rawValue == 1001)
        #expect(TelemetryError.Code.invalidEndpoint.rawValue == 1002)
        #expect(TelemetryError.Code.unusableDataDirectory.rawValue == 1003)

        // v3's spelling: `Code ~= error` inside a `catch`.
        var matchedByCode = false
        do {
            try await Telemetry.initialize(appID: " ", namespace: "ns")
        } catch let error where TelemetryError.Code.invalidEndpoint ~= error {
            Issue.record("matched the wrong code")
        } catch let error where TelemetryError.Code.invalidConfiguration ~= error {
            matchedByCode = true
        } catch {
            Issue.record("unexpected error \(error)")
        }
        #expect(matchedByCode)
        #expect(Telemetry.client == nil)
        // Untyped, as code that wraps `initialize` in its own throwing function sees it.
        let untyped: any Error = TelemetryError.invalidEndpoint
        #expect(TelemetryError.Code.invalidEndpoint ~= untyped)
        #expect(!(TelemetryError.Code.invalidConfiguration ~= untyped))
        #expect(!(TelemetryError.Code.invalidEndpoint ~= CancellationError()))

        let error = TelemetryError.blankField(name: "appID", reason: "it identifies your app")
        #expect(TelemetryError.errorDomain == "TelemetryDeck")
        #expect(error.errorCode == 1001)
        let bridged = error as NSError
        #expect(bridged.domain == "TelemetryDeck")
        #expect(bridged.code == 1001)
        #expect(
            bridged.localizedDescription
                == "Telemetry.Config.appID is blank: it identifies your app. Set it to the value from your dashboard."
        )
        #expect(error.errorUserInfo[NSLocalizedDescriptionKey] as? String == bridged.localizedDescription)
    }
}
