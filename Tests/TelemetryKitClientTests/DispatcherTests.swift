import Foundation
import TelemetryKit
import TelemetryKitSupport
import TelemetryKitTesting
import Testing

struct DispatcherTests {
    private func send(_ count: Int, to client: TelemetryClient, name: String = "E") {
        for n in 0..<count {
            client.event(name, parameters: ["n": n])
        }
    }

    @Test func batchesOf100_100_50OnOneFlush() async {
        let harness = await TestHarness.make()
        send(250, to: harness.client)
        let result = await harness.client.flush()
        #expect(result == .complete)
        #expect(harness.spy.batches.map(\.count) == [100, 100, 50])
        #expect(await harness.client.stats.destinations["spy"]?.delivered == 250)
    }

    @Test func maxBatchBytesSplitsBatches() async {
        let probe = EventFinalizer(appID: "TEST-APP").finalize(
            EventInput("E", parameters: ["n": 0]),
            context: EventContext()
        )
        let size = probe.estimatedEncodedSize
        let harness = await TestHarness.make(policy: DeliveryPolicy(maxBatchCount: 100, maxBatchBytes: size * 3))
        send(10, to: harness.client)
        await harness.client.flush()
        #expect(harness.spy.batches.map(\.count) == [3, 3, 3, 1])
        #expect(harness.spy.deliveredEvents.compactMap(\.number) == (0..<10).map(Int64.init))
    }

    @Test func retryKeepsOrder() async {
        let harness = await TestHarness.make(
            policy: DeliveryPolicy(maxBatchCount: 4, backoff: BackoffPolicy(jitter: 0))
        )
        harness.spy.script([.delivered, .retry(after: nil), .delivered])
        send(10, to: harness.client)
        let first = await harness.client.flush()
        #expect(first == .incomplete(remaining: 6))
        let second = await harness.client.flush()
        #expect(second == .complete)
        #expect(
            harness.spy.batches.map { $0.compactMap(\.number) } == [
                [0, 1, 2, 3], [4, 5, 6, 7], [4, 5, 6, 7], [8, 9],
            ]
        )
        #expect(harness.spy.deliveredEvents.compactMap(\.number) == (0..<10).map(Int64.init))
        #expect(await harness.client.stats.destinations["spy"]?.retried == 4)
    }

    @Test func rejectedBatchIsCountedAndRemoved() async {
        let reports = Locked([DeliveryReport]())
        let harness = await TestHarness.make()
        _ = harness
        let spy = SpyEventTransmitter()
        // The receiver refuses every batch with one of the first five events in it.
        spy.respond { batch in
            batch.contains { ($0.number ?? 99) < 5 }
                ? .rejected(RejectionReason("bad request", statusCode: 400)) : .delivered
        }
        let cache = InMemoryEventCache()
        let client = TelemetryClient(
            configuration: .init(appID: "APP"),
            destinations: [
                Destination(id: "d", transmitter: spy, cache: cache, policy: DeliveryPolicy(maxBatchCount: 5))
            ],
            storage: harness.storage,
            logger: harness.logger,
            clock: harness.clock,
            observer: { report in reports.withLock { $0.append(report) } }
        )
        await client.start()
        send(8, to: client)
        #expect(await client.flush() == .rejected(count: 5, remaining: 0))
        #expect(await cache.count() == 0)
        #expect(spy.deliveredEvents.compactMap(\.number) == [5, 6, 7])
        let stats = await client.stats.destinations["d"]
        #expect(stats?.rejected == 5)
        #expect(stats?.delivered == 3)
        #expect(reports.current.count == 1)
        #expect(reports.current.first?.successCount == 3)
        #expect(reports.current.first?.failureCount == 5)
        #expect(reports.current.first?.rejections.first?.statusCode == 400)
    }

    /// One event the ingest refuses costs nothing but itself: the batch is halved until it
    /// stands alone, and the 99 others are delivered.
    @Test func aBatchRefusedForOneEventIsSplitUntilOnlyThatEventIsDropped() async {
        let harness = await TestHarness.make()
        harness.spy.respond { batch in
            batch.contains { $0.number == 42 } ? .rejected(RejectionReason("bad event", statusCode: 400)) : .delivered
        }
        send(100, to: harness.client)
        #expect(await harness.client.flush() == .rejected(count: 1, remaining: 0))
        #expect(harness.spy.deliveredEvents.compactMap(\.number) == (0..<100).filter { $0 != 42 }.map(Int64.init))
        let stats = await harness.client.stats.destinations["spy"]
        #expect(stats?.rejected == 1)
        #expect(stats?.delivered == 99)
    }

    /// A refusal of every request (a wrong app id: 401) is not split: one request per batch.
    @Test func aRefusalOfTheWholeReceiverIsNotSplit() async {
        let harness = await TestHarness.make()
        harness.spy.respond { _ in .rejected(RejectionReason("unauthorized", statusCode: 401)) }
        send(10, to: harness.client)
        #expect(await harness.client.flush() == .rejected(count: 10, remaining: 0))
        #expect(harness.spy.batches.count == 1)
        // Nothing was delivered, so there is no success to report.
        #expect(await harness.client.deliveryStatus(of: "spy")?.lastSuccess == nil)
    }

    @Test func payloadTooLargeSplitsDownToTheOversizedEvent() async {
        let harness = await TestHarness.make()
        // Batches containing event 37 are too large; any batch above 10 events is too large.
        harness.spy.respond { batch in
            if batch.count > 10 || batch.contains(where: { $0.number == 37 }) { return .payloadTooLarge }
            return .delivered
        }
        send(100, to: harness.client)
        #expect(await harness.client.flush() == .rejected(count: 1, remaining: 0))
        let delivered = harness.spy.deliveredEvents.compactMap(\.number)
        #expect(delivered == (0..<100).filter { $0 != 37 }.map(Int64.init))
        let stats = await harness.client.stats.destinations["spy"]
        #expect(stats?.rejected == 1)
        #expect(stats?.delivered == 99)
    }

    @Test func backoffGrowsToTheCapAndResetsAfterSuccess() async throws {
        let policy = DeliveryPolicy(
            flushInterval: 1,
            backoff: BackoffPolicy(initial: 10, multiplier: 2, maximum: 60, jitter: 0)
        )
        let harness = await TestHarness.make(policy: policy)
        harness.spy.respond { _ in .retry(after: nil) }
        send(1, to: harness.client)
        var delays: [Double] = []
        for _ in 0..<5 {
            await harness.client.flush()
            let status = await harness.client.deliveryStatus(of: "spy")
            delays.append(status?.currentBackoff ?? -1)
        }
        #expect(delays == [10, 20, 40, 60, 60])
        harness.spy.respond { _ in .delivered }
        await harness.client.flush()
        let status = await harness.client.deliveryStatus(of: "spy")
        #expect(status?.currentBackoff == nil)
        #expect(status?.lastSuccess == harness.clock.now)
        harness.spy.respond { _ in .retry(after: nil) }
        send(1, to: harness.client)
        await harness.client.flush()
        #expect(await harness.client.deliveryStatus(of: "spy")?.currentBackoff == 10)
    }

    @Test func retryAfterIsHonouredAndTheTimerWaitsForIt() async throws {
        let policy = DeliveryPolicy(flushInterval: 5, backoff: BackoffPolicy(initial: 10, jitter: 0))
        let harness = await TestHarness.make(policy: policy)
        harness.spy.script([.retry(after: 42)])
        send(3, to: harness.client)
        await harness.client.flush()
        let status = await harness.client.deliveryStatus(of: "spy")
        #expect(status?.currentBackoff == 42)
        #expect(status?.nextAttempt == harness.clock.now.addingTimeInterval(42))
        // The timer does not send before the Retry-After delay has passed.
        await harness.clock.waitForSleepers(1)
        harness.clock.advance(by: 30)
        await harness.clock.waitForSleepers(1)
        #expect(harness.spy.batches.count == 1)
        harness.clock.advance(by: 12)
        await harness.clock.waitForSleepers(1)
        while harness.spy.deliveredEvents.count < 3 { await Task.yield() }
        #expect(harness.spy.batches.count == 2)
        #expect(harness.spy.deliveredEvents.compactMap(\.number) == [0, 1, 2])
    }

    @Test func timerSendsAfterTheFlushInterval() async {
        let harness = await TestHarness.make(policy: DeliveryPolicy(flushInterval: 10))
        send(3, to: harness.client)
        await harness.client.waitUntilProcessed()
        await harness.clock.waitForSleepers(1)
        #expect(harness.spy.batches.isEmpty)
        harness.clock.advance(by: 10)
        while harness.spy.deliveredEvents.count < 3 { await Task.yield() }
        #expect(harness.spy.batches.map(\.count) == [3])
    }

    @Test func sendThresholdTriggersDelivery() async {
        let harness = await TestHarness.make(policy: DeliveryPolicy(flushInterval: 3600, sendThreshold: 5))
        send(4, to: harness.client)
        await harness.client.waitUntilProcessed()
        #expect(harness.spy.batches.isEmpty)
        send(1, to: harness.client)
        await harness.client.waitUntilProcessed()
        while harness.spy.deliveredEvents.count < 5 { await Task.yield() }
        #expect(harness.spy.batches.map(\.count) == [5])
    }

    @Test func jitterStaysWithinTenPercent() {
        let policy = BackoffPolicy(initial: 10, multiplier: 2, maximum: 300, jitter: 0.1)
        #expect(policy.delay(afterFailures: 1, unit: 0) == 9)
        #expect(policy.delay(afterFailures: 1, unit: 1) == 11)
        #expect(policy.delay(afterFailures: 3, unit: 0.5) == 40)
        #expect(policy.baseDelay(afterFailures: 10) == 300)
    }

    @Test func maxEventAgeEvictsOldEvents() async {
        let harness = await TestHarness.make(policy: DeliveryPolicy(maxEventAge: 60))
        harness.client.event(EventInput("Old", timestamp: harness.clock.now.addingTimeInterval(-120)))
        harness.client.event(EventInput("Fresh", timestamp: harness.clock.now))
        await harness.client.flush()
        #expect(harness.spy.deliveredEvents.map(\.type) == ["Fresh"])
        #expect(await harness.client.stats.destinations["spy"]?.evicted == 1)
    }

    // MARK: One owner of delivery (#23 item 4)

    /// A client whose only destination, "d", sends through `spy` with batches of 4.
    private func client(
        _ spy: SpyEventTransmitter,
        transformations: [any EventTransformation] = [],
        logger: RecordingLogger = RecordingLogger(),
        shutdownTimeout: TimeInterval = 5
    ) async -> TelemetryClient {
        let client = TelemetryClient(
            configuration: .init(appID: "APP", shutdownTimeout: shutdownTimeout),
            destinations: [
                Destination(
                    id: "d",
                    transmitter: spy,
                    policy: DeliveryPolicy(flushInterval: 3600, maxBatchCount: 4, backoff: BackoffPolicy(jitter: 0)),
                    transformations: transformations
                )
            ],
            storage: InMemoryProcessorStorage(),
            logger: logger,
            clock: ManualClock()
        )
        await client.start()
        return client
    }

    @Test func aRejectedBatchIsLoggedAsOneWarning() async {
        let spy = SpyEventTransmitter()
        spy.script([.rejected(RejectionReason("unauthorized", statusCode: 401))])
        let logger = RecordingLogger()
        let client = await client(spy, logger: logger)
        send(3, to: client)
        #expect(await client.flush() == .rejected(count: 3, remaining: 0))
        #expect(logger.warnings == ["destination 'd' rejected 3 event(s): HTTP 401: unauthorized"])
    }

    @Test func transformationsRunOncePerEventAcrossThreeRetryRoundsOfOneBatch() async {
        let calls = Locked(0)
        let spy = SpyEventTransmitter()
        spy.script([.retry(after: nil), .retry(after: nil), .delivered])
        let client = await client(spy, transformations: [CountingTransformation(calls: calls)])
        send(4, to: client)
        #expect(await client.flush() == .incomplete(remaining: 4))
        #expect(await client.flush() == .incomplete(remaining: 4))
        #expect(await client.flush() == .complete)
        // 3 rounds of the same batch of 4: 4 calls, not 12; every round sent the transformed events.
        #expect(calls.current == 4)
        #expect(spy.batches.map { $0.compactMap(\.number) } == [[0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3]])
        #expect(spy.batches.allSatisfy { $0.allSatisfy { $0.payload["seen"] == .bool(true) } })
        // A new batch is transformed (once) too.
        send(2, to: client)
        #expect(await client.flush() == .complete)
        #expect(calls.current == 6)
    }

    @Test func shutdownRetriesAfterTheBackoffUntilDelivered() async {
        let spy = SpyEventTransmitter()
        spy.script([.retry(after: 0.05), .retry(after: 0.05), .delivered])
        let logger = RecordingLogger()
        let client = await client(spy, logger: logger)
        send(3, to: client)
        await client.shutdown()
        #expect(spy.batches.count == 3)
        #expect(spy.deliveredEvents.compactMap(\.number) == [0, 1, 2])
        #expect(await client.deliveryStatus(of: "d")?.queued == 0)
        #expect(logger.warnings.isEmpty)
    }

    @Test func shutdownStopsRetryingAtTheDeadlineAndKeepsTheEventsQueued() async {
        let spy = SpyEventTransmitter()
        spy.respond { _ in .retry(after: 0.05) }
        let logger = RecordingLogger()
        let client = await client(spy, logger: logger, shutdownTimeout: 0.3)
        send(3, to: client)
        let started = ContinuousClock.now
        await client.shutdown()
        // The receiver never takes them: without the deadline the retry loop would not end.
        // (A loose bound: the whole suite shares two cores. The first attempt is made however
        // late the shutdown runs.)
        #expect(ContinuousClock.now - started < .seconds(30))
        #expect(spy.batches.count >= 1)
        #expect(spy.batches.allSatisfy { $0.compactMap(\.number) == [0, 1, 2] })
        #expect(spy.deliveredEvents.isEmpty)
        #expect(await client.deliveryStatus(of: "d")?.queued == 3)
        #expect(logger.warnings == ["shutdown: 3 event(s) stay queued for the next launch"])
    }

    @Test func shutdownAttemptsOnceEvenWhenTheDeadlineHasPassed() async {
        let spy = SpyEventTransmitter()
        spy.respond { _ in .retry(after: 0.05) }
        let client = await client(spy, shutdownTimeout: 0)
        send(3, to: client)
        await client.shutdown()
        // One attempt, no retry: the next one would come after the deadline.
        #expect(spy.batches.map { $0.compactMap(\.number) } == [[0, 1, 2]])
        #expect(await client.deliveryStatus(of: "d")?.queued == 3)
    }

    @Test func shutdownDoesNotWaitForARetryThatWouldComeAfterTheDeadline() async {
        let spy = SpyEventTransmitter()
        spy.script([.retry(after: 60), .delivered])
        let client = await client(spy, shutdownTimeout: 30)
        send(2, to: client)
        let started = ContinuousClock.now
        await client.shutdown()
        // The server asks for 60 s, the deadline is 30 s away: shutdown ends after one attempt.
        #expect(ContinuousClock.now - started < .seconds(25))
        #expect(spy.batches.count == 1)
        #expect(await client.deliveryStatus(of: "d")?.queued == 2)
    }
}

/// Marks each event it sees (`seen`: true) and counts its calls.
private struct CountingTransformation: EventTransformation {
    let calls: Locked<Int>
    var id: String { "counting" }
    var scope: TransformationScope { .allDestinations }

    func transform(_ event: consuming Event, destination: String?) async -> Event? {
        calls.withLock { $0 += 1 }
        var event = event
        event.setPayloadValue(.bool(true), forKey: "seen")
        return event
    }
}

/// A queue on a disk that is full and unreadable: every append and every read throws.
private final class UnusableCache: EventCaching {
    struct Failure: Error {}
    func append(_ events: [Event]) async throws { throw Failure() }
    func peek(limit: Int) async throws -> [Event] { throw Failure() }
    func remove(ids: [UUID]) async throws { throw Failure() }
    func count() async -> Int { 0 }
    func removeAll() async throws { throw Failure() }
    func evictedCount() async -> Int { 0 }
}

struct UnusableCacheDeliveryTests {
    /// Delivery does not depend on the disk for what is in memory: the events the cache would
    /// not take are sent from memory, and leave it once delivered.
    @Test func eventsHeldInMemoryAreDeliveredWhileTheCacheCannotBeReadOrWritten() async {
        let spy = SpyEventTransmitter()
        spy.script([.retry(after: nil)])
        let client = TelemetryClient(
            configuration: .init(appID: "APP"),
            destinations: [
                Destination(
                    id: "d",
                    transmitter: spy,
                    cache: UnusableCache(),
                    policy: DeliveryPolicy(flushInterval: 3600, maxBatchCount: 10, backoff: BackoffPolicy(jitter: 0))
                )
            ],
            storage: InMemoryProcessorStorage(),
            logger: RecordingLogger(),
            clock: ManualClock()
        )
        await client.start()
        for number in 0..<25 { client.event("Held", parameters: ["n": number]) }
        await client.waitUntilProcessed()
        #expect(await client.deliveryStatus(of: "d")?.heldInMemory == 25)

        // A retry keeps them held; the next flush delivers all, in order, and frees the memory.
        #expect(await client.flush() == .incomplete(remaining: 25))
        #expect(await client.flush() == .complete)
        let numbers = spy.deliveredEvents.compactMap { event -> Int64? in
            if case .int(let number)? = event.payload["n"] { return number }
            return nil
        }
        #expect(numbers == (0..<25).map(Int64.init))
        #expect(spy.batches.map(\.count) == [10, 10, 10, 5])
        #expect(await client.deliveryStatus(of: "d")?.heldInMemory == 0)
        let stats = await client.stats.destinations["d"]
        #expect(stats?.delivered == 25)
        #expect(stats?.overflowDropped == 0)
        await client.shutdown()
    }
}
