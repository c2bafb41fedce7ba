import Dispatch
import Foundation
import TelemetryKit
import TelemetryKitSupport
import TelemetryKitTesting
import Testing

@testable import TelemetryKitClient

/// An awaited `send` runs on the caller's executor (`nonisolated(nonsending)`): from an actor
/// (the main actor in an app) it leaves that actor only where something needs to run
/// elsewhere. Measured without timing: every hop back to the caller is a job enqueued on the
/// caller's executor, and this executor counts them.
struct CallerExecutorTests {
    /// A serial executor on a dispatch queue that counts the jobs enqueued on it.
    final class CountingExecutor: SerialExecutor {
        private let queue = DispatchQueue(label: "CallerExecutorTests")
        private let count = Locked(0)

        var enqueued: Int { count.withLock { $0 } }

        func enqueue(_ job: consuming ExecutorJob) {
            count.withLock { $0 += 1 }
            let job = UnownedJob(job)
            let executor = asUnownedSerialExecutor()
            queue.async { job.runSynchronously(on: executor) }
        }
    }

    /// Stands for the main actor: app code that awaits `send` from its own executor.
    actor Caller {
        let executor = CountingExecutor()
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

        func send(_ count: Int, through client: TelemetryClient) async -> [SendOutcome] {
            var outcomes: [SendOutcome] = []
            for number in 0..<count {
                outcomes.append(await client.send("Screen.shown", parameters: ["number": number]))
            }
            return outcomes
        }
    }

    /// Adds a parameter without suspending: the pipeline calls it directly.
    struct Tagging: SynchronousEventProcessor {
        func process(_ input: inout EventInput, context: inout EventContext) throws {
            context.addParameter("tagged", value: true)
        }
    }

    /// A test cache that stores in an in-memory cache and differs from it only in how it
    /// appends: everything else goes to `base`.
    protocol InMemoryBacked: EventCaching {
        var base: InMemoryEventCache { get }
    }

    /// A cache whose `append` is `@concurrent`, as one that does blocking work in it must be.
    final class OffExecutorCache: InMemoryBacked {
        let base = InMemoryEventCache()
        @concurrent func append(_ events: [Event]) async throws { try await base.append(events) }
    }

    /// A cache that is appended to on the caller's executor and records how many events
    /// each append brought.
    final class CountRecordingCache: InMemoryBacked {
        let base = InMemoryEventCache()
        let appends = Locked<[Int]>([])

        nonisolated(nonsending) func append(_ events: [Event]) async throws {
            appends.withLock { $0.append(events.count) }
            try await base.append(events)
        }
    }

    /// Keeps whoever waits on it suspended until ``open()``; once open, waiting returns at once.
    final class Latch: Sendable {
        private let state = Locked<(entered: Bool, waiters: [CheckedContinuation<Void, Never>], open: Bool)>(
            (false, [], false)
        )

        /// Someone has waited on it.
        var entered: Bool { state.current.entered }

        func wait() async {
            await withCheckedContinuation { continuation in
                let open = state.withLock { state -> Bool in
                    state.entered = true
                    if !state.open { state.waiters.append(continuation) }
                    return state.open
                }
                if open { continuation.resume() }
            }
        }

        func open() {
            let waiters = state.withLock { state in
                state.open = true
                defer { state.waiters = [] }
                return state.waiters
            }
            for waiter in waiters { waiter.resume() }
        }
    }

    /// Holds the processing of events named "Gate" until ``release()``: the intake's consumer
    /// is busy meanwhile, so what is sent then queues up behind it.
    final class Gate: EventProcessor {
        private let latch = Latch()

        var entered: Bool { latch.entered }

        func process(
            _ input: EventInput,
            context: EventContext,
            next: nonisolated(nonsending) @Sendable (EventInput, EventContext) async throws -> Event
        ) async throws -> Event {
            guard input.name == "Gate" else { return try await next(input, context) }
            await latch.wait()
            return try await next(input, context)
        }

        func release() {
            latch.open()
        }
    }

    /// Sends "Gate", then, while the consumer holds it, `count` numbered fire-and-forget
    /// events and a `waitUntilProcessed` barrier, so that they make one take; releases the
    /// gate and returns once the barrier has passed.
    private static func sendOneTakeBehind(_ gate: Gate, count: Int, to client: TelemetryClient) async {
        client.event("Gate")
        #expect(await conditionHolds { gate.entered })
        for number in 0..<count { client.event("FireAndForget.then", parameters: ["number": number]) }
        let barrier = Task { await client.waitUntilProcessed() }
        #expect(await conditionHolds { client.queuedItemCount == count + 1 })
        gate.release()
        await barrier.value
    }

    /// A take longer than a group reaches a cache that is free in groups of 32 as they are
    /// processed, not in one append at the take's end: the cache commits while the pipeline
    /// goes on, and the append that nothing overlaps (the last) stays small.
    @Test func aLongTakeReachesAFreeCacheInGroupsAsTheyAreProcessed() async throws {
        let cache = CountRecordingCache()
        let gate = Gate()
        let client = await Self.client(processors: [gate], cache: cache)

        // 100 events and a barrier queued while the consumer holds the gate: one take.
        await Self.sendOneTakeBehind(gate, count: 100, to: client)

        #expect(cache.appends.current == [1, 32, 32, 32, 4])
        let numbers = try await cache.peek(limit: 200).map { $0.payload["number"] }
        #expect(numbers == [nil] + (0..<100).map { PayloadValue.int(Int64($0)) })
        await client.shutdown()
    }

    /// A cache whose appends are counted when they arrive and end only once released, as a
    /// durable cache's append ends when its I/O thread has committed it.
    final class HeldCommitCache: InMemoryBacked {
        let base = InMemoryEventCache()
        let arrived = Locked(0)
        private let held = Latch()

        nonisolated(nonsending) func append(_ events: [Event]) async throws {
            arrived.withLock { $0 += 1 }
            await held.wait()
            try await base.append(events)
        }

        func release() {
            held.open()
        }
    }

    /// Notes, when an event named "Second" goes through the pipeline, how many appends its
    /// cache had received by then.
    struct AppendsSeenBySecond: SynchronousEventProcessor {
        let cache: HeldCommitCache
        let seen = Locked<Int?>(nil)

        func process(_ input: inout EventInput, context: inout EventContext) throws {
            if input.name == "Second" { seen.set(cache.arrived.current) }
        }
    }

    /// A take's append reaches the cache before the intake goes on to the next take: the cache
    /// commits on its own thread while the pipeline runs, instead of waiting for a thread of
    /// the cooperative pool that the intake task holds (see `TelemetryClient.startedHere`).
    @Test func aTakesAppendReachesTheCacheBeforeTheNextTakeIsProcessed() async throws {
        let cache = HeldCommitCache()
        let recorder = AppendsSeenBySecond(cache: cache)
        // An overflow bound of one event makes every take one event.
        let client = await Self.client(
            processors: [recorder],
            cache: cache,
            policy: .init(flushInterval: 3600, overflowLimit: 1)
        )

        client.event("First")
        client.event("Second")
        #expect(await conditionHolds { recorder.seen.current != nil })
        #expect(recorder.seen.current == 1)
        cache.release()
        await client.waitUntilProcessed()
        #expect(await cache.count() == 2)
        #expect(cache.arrived.current == 2)
        await client.shutdown()
    }

    private static func client(
        processors: [any EventProcessor],
        cache: any EventCaching,
        policy: DeliveryPolicy = .init(flushInterval: 3600)
    ) async -> TelemetryClient {
        let client = TelemetryClient(
            configuration: .init(appID: "APP"),
            processors: processors,
            destinations: [
                Destination(
                    id: "spy",
                    transmitter: SpyEventTransmitter(),
                    cache: cache,
                    policy: policy
                )
            ],
            storage: InMemoryProcessorStorage(),
            logger: SilentLogger()
        )
        await client.start()
        return client
    }

    @Test func synchronousProcessorsAndTheInMemoryCacheNeverLeaveTheCallersExecutor() async throws {
        let cache = InMemoryEventCache()
        let client = await Self.client(processors: [Tagging(), Tagging()], cache: cache)
        let caller = Caller()

        let outcomes = await caller.send(100, through: client)

        #expect(outcomes == Array(repeating: .cached, count: 100))
        // One job: entering the actor. No send hopped off it and back.
        #expect(caller.executor.enqueued == 1)
        let events = try await cache.peek(limit: 200)
        #expect(events.count == 100)
        #expect(events.map { $0.payload["number"] } == (0..<100).map { PayloadValue.int($0) })
        #expect(events.allSatisfy { $0.payload["tagged"] == .bool(true) })
        await client.shutdown()
    }

    @Test func anAsyncProcessorRunsOffTheCallersExecutorAndComesBackOncePerSend() async throws {
        let cache = InMemoryEventCache()
        let client = await Self.client(
            processors: [Tagging(), ParameterAddingProcessor(key: "async", value: true)],
            cache: cache
        )
        let caller = Caller()

        let outcomes = await caller.send(10, through: client)

        #expect(outcomes == Array(repeating: .cached, count: 10))
        // Entering the actor, then one return per send from the async processor.
        #expect(caller.executor.enqueued == 11)
        let events = try await cache.peek(limit: 20)
        #expect(events.count == 10)
        #expect(events.allSatisfy { $0.payload["tagged"] == .bool(true) && $0.payload["async"] == .bool(true) })
        await client.shutdown()
    }

    @Test func aCacheWithAConcurrentAppendWritesOffTheCallersExecutor() async throws {
        let cache = OffExecutorCache()
        let client = await Self.client(processors: [Tagging()], cache: cache)
        let caller = Caller()

        let outcomes = await caller.send(10, through: client)

        #expect(outcomes == Array(repeating: .cached, count: 10))
        #expect(caller.executor.enqueued == 11)
        #expect(await cache.count() == 10)
        await client.shutdown()
    }
}

extension CallerExecutorTests.InMemoryBacked {
    func peek(limit: Int) async throws -> [Event] { try await base.peek(limit: limit) }
    func remove(ids: [UUID]) async throws { try await base.remove(ids: ids) }
    func count() async -> Int { await base.count() }
    func removeAll() async throws { try await base.removeAll() }
    func evictedCount() async -> Int { await base.evictedCount() }
}
