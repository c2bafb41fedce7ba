import Foundation
import TelemetryKit
import TelemetryKitConsent
import TelemetryKitSupport
import TelemetryKitTesting
import Testing

/// Holds the event named `Gate` inside the pipeline until opened, so that a test can line
/// events up behind it deterministically.
final class GateProcessor: EventProcessor {
    private struct State {
        var opened = false
        var entered = false
        var enteredWaiters: [CheckedContinuation<Void, Never>] = []
        var openWaiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    func process(
        _ input: EventInput,
        context: EventContext,
        next: nonisolated(nonsending) @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event {
        if input.name == "Gate" {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let (waiters, resumeNow) = state.withLock { state -> ([CheckedContinuation<Void, Never>], Bool) in
                    let waiters = state.enteredWaiters
                    state.entered = true
                    state.enteredWaiters = []
                    if state.opened { return (waiters, true) }
                    state.openWaiters.append(continuation)
                    return (waiters, false)
                }
                for waiter in waiters { waiter.resume() }
                if resumeNow { continuation.resume() }
            }
        }
        return try await next(input, context)
    }

    /// Waits until the `Gate` event is held.
    func waitUntilEntered() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                if state.entered { return true }
                state.enteredWaiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    /// Lets the `Gate` event (and every later one) through.
    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.opened = true
            defer { state.openWaiters = [] }
            return state.openWaiters
        }
        for waiter in waiters { waiter.resume() }
    }
}

struct ConsentProcessorTests {
    /// Processes everything sent, lets re-emitted events come back, and delivers.
    private func settle(_ client: TelemetryClient, _ consent: ConsentProcessor) async {
        await client.flush()
        await consent.waitUntilReleased()
        await client.flush()
    }

    private func names(_ spy: SpyEventTransmitter) -> [String] {
        spy.deliveredEvents.map(\.type)
    }

    @Test func undecidedEventsWaitAndAreReleasedInOrderOnGrant() async {
        let consent = ConsentProcessor()
        let harness = await TestHarness.make(processors: [consent])
        let sentAt = harness.clock.now
        for n in 1...3 {
            harness.client.event(
                EventInput("Waiting.\(n)", parameters: ["n": n], timestamp: sentAt.addingTimeInterval(Double(n)))
            )
        }
        await harness.client.flush()
        #expect(harness.spy.deliveredEvents.isEmpty)
        #expect(consent.consentState == .undecided)
        #expect(consent.queuedCount == 3)

        await consent.grant()
        await settle(harness.client, consent)
        let events = harness.spy.deliveredEvents
        #expect(events.map(\.type) == ["Waiting.1", "Waiting.2", "Waiting.3"])
        #expect(events.map { $0.payload["n"] } == [.int(1), .int(2), .int(3)])
        // The original timestamps, and no trace of the release tag.
        #expect(events.map(\.receivedAt) == (1...3).map { sentAt.addingTimeInterval(Double($0)) })
        #expect(events.allSatisfy { $0.payload[ConsentProcessor.Keys.releaseSequence] == nil })
        #expect(consent.queuedCount == 0)

        harness.client.event("AfterGrant")
        await harness.client.flush()
        #expect(names(harness.spy) == ["Waiting.1", "Waiting.2", "Waiting.3", "AfterGrant"])
    }

    @Test func laterEventsDoNotOvertakeReleasedOnes() async {
        let gate = GateProcessor()
        let consent = ConsentProcessor()
        let harness = await TestHarness.make(processors: [gate, consent])
        harness.client.event("Waiting.1")
        harness.client.event("Waiting.2")
        await harness.client.flush()
        #expect(consent.queuedCount == 2)

        // `Gate` is held inside the pipeline and `Late` waits in the intake behind it, so
        // both reach the consent processor only after the grant released the queue.
        harness.client.event("Gate")
        await gate.waitUntilEntered()
        harness.client.event("Late")
        await consent.grant()
        gate.open()
        harness.client.event("Later")
        await settle(harness.client, consent)
        await settle(harness.client, consent)
        #expect(names(harness.spy) == ["Waiting.1", "Waiting.2", "Gate", "Late", "Later"])
    }

    @Test func denyClearsTheQueueAndDropsLaterEvents() async {
        let consent = ConsentProcessor()
        let harness = await TestHarness.make(processors: [consent])
        harness.client.event("Waiting.1")
        harness.client.event("Waiting.2")
        await harness.client.flush()
        await consent.deny()
        #expect(consent.consentState == .denied)
        #expect(consent.queuedCount == 0)
        harness.client.event("WhileDenied")
        await harness.client.flush()
        #expect(harness.spy.deliveredEvents.isEmpty)
        #expect(await harness.client.stats.filtered == 3)

        // Granting later sends new events only: the cleared ones are gone.
        await consent.grant()
        harness.client.event("AfterGrant")
        await settle(harness.client, consent)
        #expect(names(harness.spy) == ["AfterGrant"])
    }

    @Test func theQueueIsBoundedOldestDropped() async {
        let consent = ConsentProcessor(queueLimit: 3)
        let harness = await TestHarness.make(processors: [consent])
        for n in 1...5 {
            harness.client.event("E\(n)")
        }
        await harness.client.flush()
        #expect(consent.queuedCount == 3)
        #expect(consent.droppedFromQueueCount == 2)
        #expect(
            harness.logger.warnings == ["consent: the consent queue is full (3); the oldest waiting events are dropped"]
        )
        await consent.grant()
        await settle(harness.client, consent)
        #expect(names(harness.spy) == ["E3", "E4", "E5"])
    }

    @Test func theQueueSurvivesARestart() async {
        let storage = InMemoryProcessorStorage()
        let firstConsent = ConsentProcessor()
        let first = await TestHarness.make(processors: [firstConsent], storage: storage)
        first.client.event("Waiting.1", parameters: ["ratio": 2.0, "count": 2])
        first.client.event("Waiting.2")
        await first.client.shutdown()
        #expect(await storage.data(forKey: ConsentProcessor.Keys.storage) != nil)

        let consent = ConsentProcessor()
        let second = await TestHarness.make(processors: [consent], storage: storage)
        #expect(consent.consentState == .undecided)
        #expect(consent.queuedCount == 2)
        second.client.event("Waiting.3")
        await second.client.flush()
        await consent.grant([.analytics])
        await settle(second.client, consent)
        let events = second.spy.deliveredEvents
        #expect(events.map(\.type) == ["Waiting.1", "Waiting.2", "Waiting.3"])
        #expect(events.first?.payload["ratio"] == .double(2.0))
        #expect(events.first?.payload["count"] == .int(2))
        await second.client.shutdown()

        // The decision is persisted too: the next launch sends at once.
        let thirdConsent = ConsentProcessor()
        let third = await TestHarness.make(processors: [thirdConsent], storage: storage)
        #expect(thirdConsent.consentState == .granted)
        #expect(thirdConsent.grantedPurposes == [.analytics])
        third.client.event("NextLaunch")
        await third.client.flush()
        #expect(names(third.spy) == ["NextLaunch"])
    }

    @Test func grantedBeforeARestartReleasesWhatWasStillOnItsWay() async throws {
        // The app quit during a release: the grant is persisted together with the events
        // not passed on yet, and the next start releases them before anything else.
        let storage = InMemoryProcessorStorage()
        let first = ConsentProcessor()
        await first.start(storage: storage, logger: RecordingLogger(), emitter: RecordingEmitter())
        let pipeline = ProcessorPipeline(processors: [first], finalizer: EventFinalizer(appID: "APP"))
        await #expect(throws: ProcessorError.self) {
            try await pipeline.process(EventInput("Early"))
        }
        #expect(first.queuedCount == 1)
        await first.grant()  // the emitter loses the released event, as a quitting app would
        await first.stop()

        let consent = ConsentProcessor()
        let harness = await TestHarness.make(processors: [consent], storage: storage, start: false)
        harness.client.event("SentBeforeStart")
        await harness.client.start()
        await settle(harness.client, consent)
        #expect(names(harness.spy) == ["Early", "SentBeforeStart"])
    }

    @Test func aDecisionMadeBeforeStartWinsOverThePersistedOne() async {
        let storage = InMemoryProcessorStorage()
        let denied = ConsentProcessor()
        let first = await TestHarness.make(processors: [denied], storage: storage)
        await denied.deny()
        await first.client.shutdown()

        let consent = ConsentProcessor()
        await consent.grant()
        let harness = await TestHarness.make(processors: [consent], storage: storage)
        harness.client.event("Allowed")
        await harness.client.flush()
        #expect(names(harness.spy) == ["Allowed"])
        await consent.waitUntilPersisted()
        let reloaded = ConsentProcessor()
        _ = await TestHarness.make(processors: [reloaded], storage: storage)
        #expect(reloaded.consentState == .granted)
    }

    @Test func unreadableStoredStateStartsUndecidedWithAWarning() async {
        let storage = InMemoryProcessorStorage()
        await storage.set(Data("{".utf8), forKey: ConsentProcessor.Keys.storage)
        let consent = ConsentProcessor()
        let harness = await TestHarness.make(processors: [consent], storage: storage)
        #expect(consent.consentState == .undecided)
        #expect(harness.logger.warnings.contains { $0.hasPrefix("consent: the saved consent state could not be read") })
    }

    // MARK: Purposes per destination

    private struct TwoDestinations {
        let client: TelemetryClient
        let ingest: SpyEventTransmitter
        let ads: SpyEventTransmitter
    }

    private func twoDestinations(_ consent: ConsentProcessor) async -> TwoDestinations {
        let ingest = SpyEventTransmitter()
        let ads = SpyEventTransmitter()
        let policy = DeliveryPolicy(flushInterval: 3600, backoff: BackoffPolicy(jitter: 0))
        let client = TelemetryClient(
            configuration: .init(appID: "APP"),
            processors: [consent],
            destinations: [
                Destination(
                    id: "ingest",
                    transmitter: ingest,
                    policy: policy,
                    transformations: [consent.destinationFilter()]
                ),
                Destination(
                    id: "ads",
                    transmitter: ads,
                    policy: policy,
                    transformations: [consent.destinationFilter(requiring: [.marketing])]
                ),
            ],
            storage: InMemoryProcessorStorage(),
            logger: RecordingLogger(),
            clock: ManualClock()
        )
        await client.start()
        return TwoDestinations(client: client, ingest: ingest, ads: ads)
    }

    @Test func aDestinationGetsOnlyEventsWhosePurposesAreGranted() async {
        let consent = ConsentProcessor(
            purposesByEvent: ["Campaign.opened": [.marketing]],
            defaultPurposes: [.analytics]
        )
        let setup = await twoDestinations(consent)
        await consent.grant([.analytics])
        setup.client.event("Screen.shown")
        setup.client.event("Campaign.opened")
        await setup.client.flush()
        // Campaign.opened needs marketing; the ads destination needs marketing for everything.
        #expect(names(setup.ingest) == ["Screen.shown"])
        #expect(names(setup.ads).isEmpty)
        #expect(await setup.client.stats.destinations["ingest"]?.filtered == 1)
        #expect(await setup.client.stats.destinations["ads"]?.filtered == 2)

        await consent.grant([.marketing])
        #expect(consent.grantedPurposes == [.analytics, .marketing])
        setup.client.event("Screen.shown")
        setup.client.event("Campaign.opened")
        await setup.client.flush()
        #expect(names(setup.ingest) == ["Screen.shown", "Screen.shown", "Campaign.opened"])
        #expect(names(setup.ads) == ["Screen.shown", "Campaign.opened"])
        // The purposes tag never leaves the device.
        let all = setup.ingest.deliveredEvents + setup.ads.deliveredEvents
        #expect(all.allSatisfy { $0.payload[ConsentProcessor.Keys.purposes] == nil })
    }

    @Test func revokingAPurposeStopsQueuedEventsThatNeedIt() async {
        let consent = ConsentProcessor()
        let setup = await twoDestinations(consent)
        await consent.grant([.marketing])
        setup.client.event("Cached")
        await setup.client.waitUntilProcessed()
        await consent.revoke([.marketing])
        #expect(consent.consentState == .granted)
        await setup.client.flush()
        #expect(names(setup.ingest) == ["Cached"])
        #expect(names(setup.ads).isEmpty)
    }

    @Test func denyingAfterGrantStopsEventsAlreadyCached() async {
        let consent = ConsentProcessor()
        let setup = await twoDestinations(consent)
        await consent.grant([.marketing])
        setup.client.event("Cached")
        await setup.client.waitUntilProcessed()
        await consent.deny()
        await setup.client.flush()
        #expect(names(setup.ingest).isEmpty)
        #expect(names(setup.ads).isEmpty)
        #expect(consent.grantedPurposes.isEmpty)
    }

    /// Prefixes parameter keys once, like `DefaultPrefixProcessor` with a parameter prefix.
    struct KeyPrefixer: EventProcessor {
        func process(
            _ input: EventInput,
            context: EventContext,
            next: nonisolated(nonsending) @Sendable (EventInput, EventContext) async throws -> Event
        ) async throws -> Event {
            var input = input
            var prefixed = EventParameters()
            for (key, value) in input.parameters {
                prefixed[key.hasPrefix("App.") ? key : "App." + key] = value
            }
            input.parameters = prefixed
            return try await next(input, context)
        }
    }

    @Test func releaseStillWorksWhenAnEarlierProcessorPrefixesKeys() async {
        let consent = ConsentProcessor()
        let harness = await TestHarness.make(processors: [KeyPrefixer(), consent])
        harness.client.event("Waiting.1", parameters: ["n": 1])
        harness.client.event("Waiting.2", parameters: ["n": 2])
        await harness.client.flush()
        await consent.grant()
        await settle(harness.client, consent)
        let events = harness.spy.deliveredEvents
        #expect(events.map(\.type) == ["Waiting.1", "Waiting.2"])
        #expect(events.map(\.payload) == [["App.n": .int(1)], ["App.n": .int(2)]])
        #expect(consent.queuedCount == 0)
    }

    @Test func purposeTagsAreSortedAndParsed() {
        #expect(ConsentProcessor.tag(for: [.marketing, .analytics]) == "analytics,marketing")
        #expect(ConsentProcessor.tag(for: []) == nil)
        #expect(ConsentProcessor.purposes(fromTag: "analytics,marketing") == [.analytics, .marketing])
    }
}
