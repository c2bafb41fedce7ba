import Foundation
import TelemetryKit
import TelemetryKitTesting
import Testing

/// A client with one destination, "primary", whose cache fails on request.
private struct FaultyCacheRig {
    static let destinationID = "primary"
    static let held = SendOutcome.heldInMemory(destinations: [destinationID])

    let client: TelemetryClient
    let cache: FaultInjectingEventCache
    let spy: SpyEventTransmitter
    let logger: RecordingLogger
    let clock: ManualClock

    static func make(
        overflowLimit: Int = 5000,
        flushInterval: TimeInterval = 3600,
        processors: [any EventProcessor] = [],
        preStartBufferLimit: Int = 1000,
        start: Bool = true
    ) async -> FaultyCacheRig {
        let cache = FaultInjectingEventCache()
        let spy = SpyEventTransmitter()
        let logger = RecordingLogger()
        let clock = ManualClock()
        let policy = DeliveryPolicy(
            flushInterval: flushInterval,
            backoff: BackoffPolicy(jitter: 0),
            overflowLimit: overflowLimit
        )
        let client = TelemetryClient(
            configuration: .init(appID: "TEST-APP", preStartBufferLimit: preStartBufferLimit, shutdownTimeout: 2),
            processors: processors,
            destinations: [Destination(id: destinationID, transmitter: spy, cache: cache, policy: policy)],
            storage: InMemoryProcessorStorage(),
            logger: logger,
            clock: clock
        )
        if start { await client.start() }
        return FaultyCacheRig(client: client, cache: cache, spy: spy, logger: logger, clock: clock)
    }

    var stats: DestinationStats? {
        get async { await client.stats.destinations[Self.destinationID] }
    }

    /// Awaited sends of `Numbered` events with `n` in `numbers`, in order; their outcomes.
    func sendNumbered(_ numbers: Range<Int>) async -> [SendOutcome] {
        var outcomes: [SendOutcome] = []
        for n in numbers {
            outcomes.append(await client.send("Numbered", parameters: ["n": n]))
        }
        return outcomes
    }
}

struct CacheOverflowTests {
    @Test func cacheThatFailsThreeAppendsThenRecoversLosesNothingAndKeepsOrder() async throws {
        let rig = await FaultyCacheRig.make()
        rig.cache.failNextAppends(3)
        // Send 0 fails; sends 1 and 2 retry the held events first, fail, and wait behind them;
        // send 3 caches 0, 1, 2 and then itself.
        let outcomes = await rig.sendNumbered(0..<8)
        let held = FaultyCacheRig.held
        #expect(outcomes == [held, held, held, .cached, .cached, .cached, .cached, .cached])
        #expect(rig.cache.failedAppends == 3)
        #expect(try await rig.cache.base.peek(limit: 100).compactMap(\.number) == Array(0..<8))

        #expect(await rig.client.flush() == .complete)
        #expect(rig.spy.deliveredEvents.compactMap(\.number) == Array(0..<8))
        let stats = try #require(await rig.stats)
        #expect(stats.cacheFailures == 3)
        #expect(stats.accepted == 8)
        #expect(stats.delivered == 8)
        #expect(stats.overflowDropped == 0)
        #expect(stats.heldInMemory == 0)
        // One error for the outage (not one per retry), one note for the recovery.
        #expect(rig.logger.messages(at: .error).count == 1)
        #expect(
            rig.logger.messages(at: .info).contains {
                $0 == "destination 'primary': the cache works again: 3 event(s) held in memory were cached"
            }
        )
    }

    @Test func cacheThatNeverRecoversKeepsTheNewestUpToTheBoundAndCountsTheDropped() async throws {
        let rig = await FaultyCacheRig.make(overflowLimit: 5)
        rig.cache.failAllAppends()
        let outcomes = await rig.sendNumbered(0..<12)
        #expect(outcomes == Array(repeating: FaultyCacheRig.held, count: 12))

        let stats = try #require(await rig.stats)
        #expect(stats.overflowDropped == 7)
        #expect(stats.heldInMemory == 5)
        #expect(stats.cacheFailures == 12)
        #expect(stats.accepted == 0)
        #expect(stats.queued == 0)
        // The receiver is away too: the held events are tried from memory, and stay there.
        rig.spy.respond { _ in .retry(after: nil) }
        #expect(await rig.client.flush() == .incomplete(remaining: 5))
        #expect(rig.spy.batches.map { $0.compactMap(\.number) } == [[7, 8, 9, 10, 11]])
        #expect(rig.spy.deliveredEvents.isEmpty)
        #expect(await rig.client.deliveryStatus(of: FaultyCacheRig.destinationID)?.heldInMemory == 5)
        // One warning for the whole burst of drops.
        let full = rig.logger.warnings.filter { $0.contains("the in-memory overflow is full") }
        #expect(
            full == [
                "destination 'primary': the in-memory overflow is full (5 events); "
                    + "the oldest are dropped until the cache works again"
            ]
        )

        await rig.client.shutdown()
        #expect(
            rig.logger.messages(at: .error).contains(
                "shutdown: destination 'primary': 5 event(s) are only in memory "
                    + "because its cache fails; they are lost when the process ends"
            )
        )
    }

    @Test func fireAndForgetBurstBeyondTheBoundDropsTheOldestAndTheRestArrivesInOrder() async throws {
        let rig = await FaultyCacheRig.make(overflowLimit: 5)
        rig.cache.failAllAppends()
        for n in 0..<100 {
            rig.client.event("Numbered", parameters: ["n": n])
        }
        await rig.client.waitUntilProcessed()
        var stats = try #require(await rig.stats)
        #expect(stats.cacheFailures == 100)
        #expect(stats.overflowDropped == 95)
        #expect(stats.heldInMemory == 5)

        rig.cache.recover()
        #expect(await rig.client.flush() == .complete)
        #expect(rig.spy.deliveredEvents.compactMap(\.number) == Array(95..<100))
        stats = try #require(await rig.stats)
        #expect(stats.heldInMemory == 0)
        #expect(stats.accepted == 5)
        #expect(
            rig.logger.messages(at: .info).contains(
                "destination 'primary': the cache works again: 5 event(s) held in memory were cached; "
                    + "95 event(s) were dropped meanwhile (the overflow was full)"
            )
        )
    }

    @Test func onlyTheFailingDestinationHoldsTheEvent() async {
        let working = SpyEventTransmitter()
        let failing = SpyEventTransmitter()
        let failingCache = FaultInjectingEventCache()
        failingCache.failAllAppends()
        let client = TelemetryClient(
            configuration: .init(appID: "TEST-APP"),
            destinations: [
                Destination(id: "a", transmitter: working, cache: InMemoryEventCache()),
                Destination(id: "b", transmitter: failing, cache: failingCache),
            ],
            storage: InMemoryProcessorStorage(),
            logger: RecordingLogger(),
            clock: ManualClock()
        )
        await client.start()
        #expect(await client.send("Numbered", parameters: ["n": 0]) == .heldInMemory(destinations: ["b"]))
        // Delivered from memory: the failing cache does not hold the event back.
        #expect(await client.flush() == .complete)
        #expect(working.deliveredEvents.compactMap(\.number) == [0])
        #expect(failing.deliveredEvents.compactMap(\.number) == [0])
        #expect(await client.deliveryStatus(of: "b")?.heldInMemory == 0)

        failingCache.recover()
        #expect(await client.send("Numbered", parameters: ["n": 1]) == .cached)
        #expect(await client.flush() == .complete)
        #expect(working.deliveredEvents.compactMap(\.number) == [0, 1])
        #expect(failing.deliveredEvents.compactMap(\.number) == [0, 1])
    }

    @Test func theTimerRoundCachesAndDeliversHeldEventsWithoutANewSend() async {
        let rig = await FaultyCacheRig.make(flushInterval: 10)
        rig.cache.failNextAppends(1)
        #expect(await rig.client.send("Held") == FaultyCacheRig.held)
        await rig.clock.waitForSleepers(1)
        rig.clock.advance(by: 10)
        while rig.spy.deliveredEvents.isEmpty { await Task.yield() }
        #expect(rig.spy.deliveredEvents.map(\.type) == ["Held"])
        #expect(rig.cache.failedAppends == 1)
    }

    @Test func shutdownCachesAndDeliversHeldEventsWhenTheCacheWorksAgain() async {
        let rig = await FaultyCacheRig.make()
        rig.cache.failNextAppends(1)
        #expect(await rig.client.send("Held") == FaultyCacheRig.held)
        await rig.client.shutdown()
        #expect(rig.spy.deliveredEvents.map(\.type) == ["Held"])
        #expect(!rig.logger.messages(at: .error).contains { $0.hasPrefix("shutdown:") })
    }

    @Test func optingOutDiscardsEventsHeldInMemory() async throws {
        let rig = await FaultyCacheRig.make()
        rig.cache.failAllAppends()
        #expect(await rig.sendNumbered(0..<2) == [FaultyCacheRig.held, FaultyCacheRig.held])
        await rig.client.setAnalyticsDisabled(true)
        #expect(try #require(await rig.stats).heldInMemory == 0)
        rig.cache.recover()
        await rig.client.setAnalyticsDisabled(false)
        #expect(await rig.client.send("After") == .cached)
        #expect(await rig.client.flush() == .complete)
        #expect(rig.spy.deliveredEvents.map(\.type) == ["After"])
    }

    @Test func heldEventsAreCachedAgainInOneAppendNotInChunks() async throws {
        let rig = await FaultyCacheRig.make()
        rig.cache.failAllAppends()
        for n in 0..<1200 {
            rig.client.event("Numbered", parameters: ["n": n])
        }
        await rig.client.waitUntilProcessed()
        #expect(try #require(await rig.stats).heldInMemory == 1200)
        let failedAttempts = rig.cache.appendAttempts

        rig.cache.recover()
        #expect(await rig.client.flush() == .complete)
        // One append for the 1,200 held events (the cache's group commit), not 512 + 512 + 176.
        #expect(rig.cache.appendAttempts == failedAttempts + 1)
        #expect(rig.spy.deliveredEvents.compactMap(\.number) == (0..<1200).map(Int64.init))
    }

    @Test func aBurstReachesTheCacheInGroupsWithinTakesOfAtMost512EventsOrTheOverflowBound() async throws {
        // 1,300 events buffered before start arrive at once; the intake hands them out in
        // takes of 512 (a durable cache's group commit), and a cache that is free when 32 of
        // a take are processed gets those at once (it commits while the pipeline goes on).
        // This cache is always free: groups of 32, and each take's rest (276 = 8 × 32 + 20).
        let rig = await FaultyCacheRig.make(preStartBufferLimit: 2000, start: false)
        for n in 0..<1300 {
            rig.client.event("Numbered", parameters: ["n": n])
        }
        await rig.client.start()
        await rig.client.waitUntilProcessed()
        #expect(rig.cache.attemptedAppendSizes == Array(repeating: 32, count: 40) + [20])

        // A smaller overflow bound makes smaller takes (100, 100, 50), and no group spans two
        // takes: a group held in memory never pushes out its own events.
        let bounded = await FaultyCacheRig.make(overflowLimit: 100, preStartBufferLimit: 2000, start: false)
        for n in 0..<250 {
            bounded.client.event("Numbered", parameters: ["n": n])
        }
        await bounded.client.start()
        await bounded.client.waitUntilProcessed()
        #expect(bounded.cache.attemptedAppendSizes == [32, 32, 32, 4, 32, 32, 32, 4, 32, 18])
        #expect(await bounded.client.flush() == .complete)
        #expect(bounded.spy.deliveredEvents.compactMap(\.number) == (0..<250).map(Int64.init))
    }

    @Test func aWorkingCacheIsAppendedOnceForEachSend() async {
        // The overflow adds no cache call while it is empty.
        let rig = await FaultyCacheRig.make()
        #expect(await rig.sendNumbered(0..<10) == Array(repeating: .cached, count: 10))
        #expect(rig.cache.appendAttempts == 10)
    }
}

struct SendOutcomeTests {
    @Test func sendReportsWhyAnEventWasNotCached() async {
        let rig = await FaultyCacheRig.make(
            processors: [FilteringProcessor(names: ["Filtered"]), FailingProcessor(failingName: "Broken")]
        )
        #expect(await rig.client.send("Kept") == .cached)
        #expect(await rig.client.send("Filtered") == .filtered)
        #expect(await rig.client.send("Broken") == .processingFailed)
        #expect(await rig.client.flush() == .complete)
        #expect(rig.spy.deliveredEvents.map(\.type) == ["Kept"])
        await rig.client.setAnalyticsDisabled(true)
        #expect(await rig.client.send("OptedOut") == .droppedByOptOut)
        await rig.client.setAnalyticsDisabled(false)
        await rig.client.shutdown()
        #expect(await rig.client.send("Late") == .droppedAfterShutdown)
    }

    @Test func sendBeforeStartReportsOnceStartedOrDroppedWhenTheBufferIsFull() async {
        let rig = await FaultyCacheRig.make(start: false)
        async let early = rig.client.send("Early")
        await rig.client.start()
        #expect(await early == .cached)

        let unbuffered = await FaultyCacheRig.make(preStartBufferLimit: 0, start: false)
        #expect(await unbuffered.client.send("Early") == .droppedBeforeStart)
    }

    /// Concurrent sends go partly inline, partly through the intake queue: each learns its
    /// own outcome either way.
    @Test(arguments: [false, true])
    func concurrentSendsEachLearnTheirOwnOutcome(cacheFails: Bool) async {
        let rig = await FaultyCacheRig.make(processors: [FilteringProcessor(names: ["Filtered"])])
        if cacheFails { rig.cache.failAllAppends() }
        let outcomes = await withTaskGroup(of: (String, SendOutcome).self) { group in
            for task in 0..<40 {
                let name = task.isMultiple(of: 2) ? "Kept" : "Filtered"
                group.addTask { (name, await rig.client.send(name, parameters: ["n": task])) }
            }
            var outcomes: [String: Set<SendOutcome>] = [:]
            for await (name, outcome) in group {
                outcomes[name, default: []].insert(outcome)
            }
            return outcomes
        }
        #expect(outcomes["Kept"] == [cacheFails ? FaultyCacheRig.held : .cached])
        #expect(outcomes["Filtered"] == [.filtered])
        let stats = await rig.stats
        #expect(stats?.cacheFailures == (cacheFails ? 20 : 0))
        #expect(stats?.accepted == (cacheFails ? 0 : 20))
    }
}
