import Foundation
import TelemetryKit
import TelemetryKitCacheSupport
import TelemetryKitSupport
import TelemetryKitTesting
import Testing

/// The frame both durable caches share, over a store in memory that can be told to fail.
struct CommittedEventCacheTests {
    struct StoreFailure: Error, CustomStringConvertible {
        var description: String { "disk full" }
    }

    /// Events in an array, with a limit; fails every call while `failing` is set.
    struct ArrayStore: CommittedEventStore {
        var events: [Event] = []
        var evicted = 0
        var failing = false
        var appendCalls = 0
        /// Called inside every removal, as the store holds the I/O queue (blocks there in a test).
        var duringRemoval: @Sendable () -> Void = {}

        var count: Int { events.count }

        mutating func append(_ records: [Event], limit: Int) throws -> Int {
            if failing { throw StoreFailure() }
            appendCalls += 1
            events += records
            let overflow = max(0, events.count - limit)
            events.removeFirst(overflow)
            return overflow
        }

        mutating func remove(ids: [UUID]) throws {
            if failing { throw StoreFailure() }
            duringRemoval()
            let removed = Set(ids)
            events.removeAll { removed.contains($0.id) }
        }

        mutating func removeAll() throws {
            if failing { throw StoreFailure() }
            events = []
        }
    }

    private static func event(_ number: Int) -> Event {
        Event(
            appID: "APP",
            type: "Event.\(number)",
            clientUser: "user",
            sessionID: "session",
            receivedAt: Date(timeIntervalSince1970: 1_700_000_000),
            payload: ["number": .int(Int64(number))]
        )
    }

    private static func frame(
        limit: Int = 1_000,
        logger: RecordingLogger = RecordingLogger(),
        store: ArrayStore = ArrayStore()
    ) -> CommittedEventCache<ArrayStore> {
        CommittedEventCache(
            store: store,
            name: "test event cache",
            path: "/data/events",
            limit: limit,
            maxBytes: 1_000_000,
            logger: logger
        )
    }

    /// A full queue evicts on every append; one warning says so until a delivery makes room.
    @Test func evictionsAreLoggedOncePerEpisode() async throws {
        let logger = RecordingLogger()
        let frame = Self.frame(limit: 3, logger: logger)
        try await frame.append((1...5).map(Self.event))
        try await frame.append([Self.event(6)])
        try await frame.append([Self.event(7)])

        #expect(frame.evicted == 4)
        #expect(logger.warnings.count == 1)
        #expect(logger.warnings.first?.contains("test event cache at /data/events is full") == true)
        #expect(logger.warnings.first?.contains("evicted the 2 oldest event(s)") == true)

        let queued = try await frame.read { store in (store.events, []) }
        try await frame.remove(ids: [queued[0].id])
        try await frame.append([Self.event(8)])
        #expect(logger.warnings.count == 1)
        try await frame.append([Self.event(9)])

        #expect(frame.evicted == 5)
        #expect(logger.warnings.count == 2)
    }

    @Test func concurrentAppendsAreAllStoredInEachCallersOrderAndEvictionsCounted() async throws {
        let frame = Self.frame(limit: 150)
        await withTaskGroup(of: Void.self) { group in
            for caller in 0..<50 {
                group.addTask {
                    for step in 0..<4 {
                        try? await frame.append([Self.event(caller * 10 + step)])
                    }
                }
            }
        }
        #expect(frame.count == 150)
        #expect(frame.evicted == 50)
        let numbers = try await frame.read { store in (store.events, []) }.map {
            Int($0.type.dropFirst("Event.".count))
        }
        // Each caller's surviving events are in the order it appended them.
        for caller in 0..<50 {
            let own = numbers.compactMap { $0 }.filter { $0 / 10 == caller }
            #expect(own == own.sorted())
        }
        // Commits were shared: fewer store appends than submissions.
        #expect((frame.inspect(\.appendCalls) ?? .max) <= 200)
    }

    @Test func failuresNameTheActionTheCacheAndItsFile() async throws {
        let frame = Self.frame()
        try await frame.append([Self.event(1)])
        try frame.perform("break") { $0.failing = true }

        await #expect {
            try await frame.append([Self.event(2)])
        } throws: { error in
            Self.isCacheError(error, "Cannot append to the test event cache: disk full")
        }
        await #expect {
            try await frame.remove(ids: [Self.event(3).id])
        } throws: { error in
            Self.isCacheError(error, "Cannot remove from the test event cache: disk full")
        }
        await #expect {
            try await frame.removeAll()
        } throws: { error in
            Self.isCacheError(error, "Cannot clear the test event cache: disk full")
        }
        #expect(frame.count == 1)
    }

    private static func isCacheError(_ error: any Error, _ message: String) -> Bool {
        guard let error = error as? EventCacheError else { return false }
        return error.message == message && error.path == "/data/events"
    }

    @Test func unreadableEventsAreDroppedFromTheReadAndLoggedOnce() async throws {
        let logger = RecordingLogger()
        let frame = Self.frame(logger: logger)
        let events = try await frame.read { _ in ([Self.event(1)], ["row 7: bad JSON", "row 9: no id"]) }
        #expect(events.map(\.type) == ["Event.1"])
        #expect(
            logger.warnings == [
                "Dropped 2 unreadable event(s) from the test event cache at /data/events: row 7: bad JSON; row 9: no id"
            ]
        )
        _ = try await frame.read { _ in ([], []) }
        #expect(logger.warnings.count == 1)
    }

    @Test func anEmptyAppendOrRemovalDoesNotReachTheStore() async throws {
        let frame = Self.frame()
        try frame.perform("break") { $0.failing = true }
        try await frame.append([])
        try await frame.remove(ids: [])
        #expect(frame.inspect(\.appendCalls) == 0)
    }

    /// A removal that blocks (a compaction's fsync) runs on the cache's I/O queue, not on the
    /// removing task's thread: more such caches than cores leave the cooperative pool free.
    @Test func blockedRemovalsLeaveTheCooperativePoolFree() async throws {
        try await expectCooperativePoolFree { index, block in
            let frame = Self.frame(store: ArrayStore(duringRemoval: block))
            try await frame.append([Self.event(index)])
            try await frame.remove(ids: [UUID()])
        }
    }

    /// A store opened on the I/O queue: the frame is made at once, the opening runs first, a
    /// failed opening fails each call with its own error (not logged: the caller reports it),
    /// and the next call opens again.
    @Test func aStoreOpenedOnTheQueueIsTriedAgainByEachCallUntilItOpens() async throws {
        let logger = RecordingLogger()
        let attempts = Locked(0)
        let frame = CommittedEventCache<ArrayStore>(
            opening: {
                let attempt = attempts.withLock { attempts in
                    attempts += 1
                    return attempts
                }
                if attempt < 3 {
                    throw EventCacheError("Cannot open the test event cache: no disk", path: "/data/events")
                }
                return ArrayStore()
            },
            name: "test event cache",
            path: "/data/events",
            limit: 1_000,
            maxBytes: 1_000_000,
            logger: logger
        )
        #expect(frame.count == 0)
        await #expect(throws: EventCacheError.self) { try await frame.opened() }
        #expect(attempts.current == 2)  // the queue's first job, then `opened()`
        #expect(logger.entries.isEmpty)
        try await frame.append([Self.event(1)])  // opens at the third attempt
        #expect(attempts.current == 3)
        try await frame.opened()
        try await frame.append([Self.event(2)])
        #expect(attempts.current == 3)
        #expect(frame.inspect(\.events)?.map(\.type) == ["Event.1", "Event.2"])
        #expect(frame.count == 2)
    }

    /// A read, a removal and clearing, each through the I/O queue, see what came before them.
    @Test func readsAndRemovalsOnTheIOQueueSeeTheEarlierAppends() async throws {
        let frame = Self.frame()
        let events = (1...3).map(Self.event)
        try await frame.append(events)
        try await frame.remove(ids: [events[0].id])
        #expect(try await frame.read { store in (store.events, []) }.map(\.type) == ["Event.2", "Event.3"])
        try await frame.removeAll()
        #expect(frame.count == 0)
    }
}
