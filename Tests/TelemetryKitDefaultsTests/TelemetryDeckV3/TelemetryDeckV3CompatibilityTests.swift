import Foundation
import TelemetryKitDefaults
import TelemetryKitSupport
import TelemetryKitTesting
import Testing

/// The v3 app (`V3App.swift`) run through the renamed facade, and v3's behaviour around
/// `initialize`. In the facade's serialized suite: they share the global `Telemetry`.
extension FacadeTests {
    @Test func aV3AppRunsThroughTheRenamedFacade() async throws {
        await Telemetry.terminate()
        let spy = SpyEventTransmitter()
        let storage = V3DictionaryStorage()
        let logger = V3Logger()
        try await V3App.start(spy: spy, storage: storage, logger: logger)
        await V3App.sendEverything()
        let seen = await V3App.observe(storage: storage)
        await Telemetry.flush()
        let events = spy.deliveredEvents
        let types = events.map(\.type)

        // The app's own events, in order, with the filtered one gone.
        #expect(
            types.filter { !$0.hasPrefix("TelemetryDeck.") && !$0.hasPrefix("Legacy.") && $0 != "Manual" } == [
                "Sync.started", "Screen.settings", "Sync.finished", "Screen.settings", "Export.duration",
            ]
        )
        #expect(!types.contains("Drop.me"))
        #expect(!types.contains("Cancelled.duration"))
        #expect(!types.contains("Legacy.cancelled"))
        // Every preset, async and deprecated, under v3's names.
        for name in [
            "TelemetryDeck.Navigation.pathChanged", "TelemetryDeck.Error.occurred",
            "TelemetryDeck.Acquisition.userAcquired", "TelemetryDeck.Acquisition.leadStarted",
            "TelemetryDeck.Acquisition.leadConverted", "TelemetryDeck.Activation.onboardingCompleted",
            "TelemetryDeck.Activation.coreFeatureUsed", "TelemetryDeck.Referral.sent",
            "TelemetryDeck.Referral.userRatingSubmitted", "TelemetryDeck.Revenue.paywallShown",
            "Legacy.signal", "Legacy.duration",
        ] {
            #expect(types.contains(name), "\(name)")
        }
        #expect(types.filter { $0 == "TelemetryDeck.Error.occurred" }.count == 6)
        #expect(types.filter { $0 == "TelemetryDeck.Navigation.pathChanged" }.count == 4)

        let finished = try #require(events.first { $0.type == "Sync.finished" })
        #expect(finished.clientUser == SHA256Hex.digest("someone" + "pepper"))
        #expect(finished.floatValue == 2)
        #expect(finished.isTestMode == "true")
        #expect(finished.payload["ok"] == .bool(true))
        #expect(finished.payload["App.plan"] == .string("pro"))
        #expect(finished.payload["App.theme"] == .string("dark"))
        #expect(finished.payload["App.build"] == .string("42"))
        #expect(finished.payload["App.channel"] == nil)
        #expect(finished.payload["TelemetryDeck.Activation.featureName"] == .string("screens"))

        let converted = try #require(events.first { $0.type == "TelemetryDeck.Acquisition.leadConverted" })
        #expect(converted.payload["TelemetryDeck.Acquisition.leadID"] == .string("caller-wins"))
        let rating = try #require(events.first { $0.type == "TelemetryDeck.Referral.userRatingSubmitted" })
        #expect(rating.payload["TelemetryDeck.Referral.ratingValue"] == .int(8))
        #expect(rating.payload["TelemetryDeck.Referral.ratingComment"] == .string("nice"))
        let quota = try #require(
            events.first { $0.payload["TelemetryDeck.Error.id"] == .string("Quota.exceeded") }
        )
        #expect(quota.payload["TelemetryDeck.Error.category"] == .string("thrown-exception"))
        let plain = try #require(events.first { $0.payload["TelemetryDeck.Error.id"] == .string("Plain.error") })
        #expect(plain.payload["TelemetryDeck.Error.message"] == .string("custom"))
        let export = try #require(events.first { $0.type == "Export.duration" })
        #expect(export.payload["format"] == .string("pdf"))
        #expect(export.payload["pages"] == .int(3))
        #expect(export.payload["TelemetryDeck.Signal.durationInSeconds"] != nil)
        let legacy = try #require(events.first { $0.type == "Legacy.signal" })
        #expect(legacy.payload["legacy"] == .string("yes"))

        #expect(seen.sessionID != nil)
        #expect(seen.newSessionID != nil)
        #expect(seen.newSessionID != seen.sessionID)
        #expect(seen.capabilitySessionID == seen.newSessionID)
        #expect(seen.isTestMode)
        #expect(seen.userIdentifier == "v3-user@example.com")
        #expect(seen.durationResultSeconds != nil)
        #expect(seen.parameterCount == 4)
        #expect(
            seen.mergedPayload == [
                "plan": .string("pro"), "TelemetryDeck.Referral.kind": .string("link"), "seats": .int(3),
                "region": .string("EU"),
            ]
        )
        #expect(seen.analyticsDisabledAfterOptOut)
        #expect(seen.storageKeys.contains("V3ScreenProcessor.started"))
        // The v3 storage holds the session history and install id the processors keep.
        #expect(seen.storageKeys.count >= 3)
        // The v3 logger got the SDK's diagnostics at v3's levels.
        #expect(logger.messages.allSatisfy { $0.hasPrefix("D ") || $0.hasPrefix("I ") || $0.hasPrefix("E ") })
        await Telemetry.terminate()
    }

    @Test func aBlankAppIDIsATypedError() async {
        await Telemetry.terminate()
        #expect(await V3App.initializeWithBlankAppID() == .invalidConfiguration)
        #expect(Telemetry.client == nil)
    }

    /// v3: `await event(...)` before `initialize` returns once the event is buffered, so an
    /// app can await an event and initialize afterwards on the same task (this hung before).
    /// At initialize, the SDK's first events come before the buffered ones.
    @Test(.timeLimit(.minutes(1)))
    func anAwaitedEventBeforeInitializeReturnsAndFollowsTheSDKsFirstEvents() async throws {
        await Telemetry.terminate()
        await Telemetry.event("Early.awaited", parameters: ["n": 1])
        await Telemetry.event(V3App.Screen.settings)
        Telemetry.signal("Early.signal")
        let spy = SpyEventTransmitter()
        try await Telemetry.initialize(
            configuration: config,
            processors: Telemetry.defaultProcessors(testMode: false),
            cache: InMemoryEventCache(),
            transmitter: spy,
            logger: RecordingLogger(),
            storage: InMemoryProcessorStorage()
        )
        await Telemetry.flush()
        #expect(
            spy.deliveredEvents.map(\.type) == [
                "TelemetryDeck.Acquisition.newInstallDetected", "TelemetryDeck.Session.started", "Early.awaited",
                "Screen.settings", "Early.signal",
            ]
        )
        await Telemetry.terminate()
    }

    @Test(.timeLimit(.minutes(1)))
    func anAwaitedEventAfterTerminateReturnsAndWaitsForTheNextInitialize() async throws {
        await Telemetry.terminate()
        let first = SpyEventTransmitter()
        try await initialize(processors: [], spy: first)
        await Telemetry.event("Before.terminate")
        await Telemetry.terminate()
        await Telemetry.event("After.terminate")
        #expect(first.deliveredEvents.map(\.type) == ["Before.terminate"])
        let second = SpyEventTransmitter()
        try await initialize(processors: [], spy: second)
        await Telemetry.flush()
        #expect(second.deliveredEvents.map(\.type) == ["After.terminate"])
        await Telemetry.terminate()
    }
}
