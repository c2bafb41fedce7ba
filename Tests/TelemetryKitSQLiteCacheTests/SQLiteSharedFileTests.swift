import Foundation
import TelemetryKit
import TelemetryKitSQLiteCache
import TelemetryKitTesting
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Two cache instances on one file stand in for two processes sharing a queue (an app and its
/// extension): the second instance takes its send lease for another process id, the test
/// runner's parent (alive) or a child that has exited (dead). The real two-process tests are in
/// TelemetryKitCacheDurabilityTests (`SharedQueueTests`).
struct SQLiteSharedFileTests {
    /// The send lease: while one process sends a batch, the other's peek returns nothing; once
    /// the batch is removed, the other sends the rest, its own events and the first's, in order.
    @Test func whileOneProcessSendsTheOtherPeeksNothingThenSendsTheRestInOrder() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let app = try SQLiteEventCache(fileURL: url)
        let widget = try SQLiteEventCache(fileURL: url, leaseProcess: getppid())
        let events = EventCacheConformance.numberedEvents(1...8)
        try await app.append(Array(events[0..<5]))
        try await widget.append(Array(events[5...]))

        #expect(try await app.peek(limit: 3) == Array(events[0..<3]))
        #expect(try await widget.peek(limit: 100) == [])
        // The same batch again for the holder (a retry), still nothing for the other.
        #expect(try await app.peek(limit: 3) == Array(events[0..<3]))
        #expect(try await widget.peek(limit: 100) == [])

        try await app.remove(ids: events[0..<3].map(\.id))
        #expect(try await widget.peek(limit: 100) == Array(events[3...]))
        #expect(try await app.peek(limit: 100) == [])
        try await widget.remove(ids: events[3...].map(\.id))
        #expect(await widget.count() == 0)
        #expect(try await app.peek(limit: 100) == [])
        #expect(await app.count() == 0)
    }

    /// A batch sent in halves (the receiver said the payload was too large) keeps the lease
    /// until its second half is removed.
    @Test func removingHalfOfTheBatchKeepsTheLease() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let app = try SQLiteEventCache(fileURL: url)
        let widget = try SQLiteEventCache(fileURL: url, leaseProcess: getppid())
        let events = EventCacheConformance.numberedEvents(1...6)
        try await app.append(events)

        #expect(try await app.peek(limit: 4) == Array(events[0..<4]))
        try await app.remove(ids: events[0..<2].map(\.id))
        #expect(try await widget.peek(limit: 100) == [])
        try await app.remove(ids: events[2..<4].map(\.id))
        #expect(try await widget.peek(limit: 100) == Array(events[4...]))
    }

    /// A sender killed mid-send frees its lease at once (its process is gone), and the next
    /// sender sends the same events, with the same ids: the only duplicates sharing adds.
    @Test func aDeadSendersBatchIsSentAgainWithTheSameIDs() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let deadProcess = try await exitedProcessIdentifier()
        let killed = try SQLiteEventCache(fileURL: url, leaseProcess: deadProcess)
        let survivor = try SQLiteEventCache(fileURL: url)
        let events = EventCacheConformance.numberedEvents(1...5)
        try await survivor.append(events)

        let inFlight = try await killed.peek(limit: 3)
        #expect(inFlight == Array(events[0..<3]))
        let again = try await survivor.peek(limit: 3)
        #expect(again.map(\.id) == inFlight.map(\.id))
    }

    /// A live holder that stops sending (an app suspended after a failed send) keeps the
    /// lease only until it expires.
    @Test func aLeaseExpires() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let clock = ManualClock()
        let suspended = try SQLiteEventCache(fileURL: url, clock: clock, sendLeaseDuration: 60, leaseProcess: getppid())
        let other = try SQLiteEventCache(fileURL: url, clock: clock, sendLeaseDuration: 60)
        let events = EventCacheConformance.numberedEvents(1...4)
        try await other.append(events)

        #expect(try await suspended.peek(limit: 2) == Array(events[0..<2]))
        clock.advance(by: 59)
        #expect(try await other.peek(limit: 10) == [])
        clock.advance(by: 2)
        #expect(try await other.peek(limit: 10) == events)
        // Now the other holds it.
        #expect(try await suspended.peek(limit: 10) == [])
    }

    /// A file created now holds an empty queue's totals from its first commit, so opening it
    /// reads and counts nothing more; the other process's events on it count for both.
    @Test func aNewFileHoldsTheTotalsOfAnEmptyQueueFromTheStart() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let app = try SQLiteEventCache(fileURL: url)
        try await app.opened()
        #expect(try queryInt(at: url, "SELECT COUNT(*) FROM totals WHERE id = 1 AND count = 0 AND bytes = 0") == 1)
        #expect(await app.count() == 0)

        let widget = try SQLiteEventCache(fileURL: url, leaseProcess: getppid())
        let events = EventCacheConformance.numberedEvents(1...3)
        try await widget.append(events)
        #expect(try await app.peek(limit: 10) == events)
        #expect(await app.count() == 3)
        #expect(await widget.count() == 3)
    }

    /// The limit counts every process's events: an append evicts the oldest events, whoever
    /// appended them, and each instance's count follows the other's writes.
    @Test func theLimitCountsTheOtherProcessesEvents() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let app = try SQLiteEventCache(fileURL: url, limit: 10)
        let widget = try SQLiteEventCache(fileURL: url, limit: 10, leaseProcess: getppid())
        let events = EventCacheConformance.numberedEvents(1...13)
        try await app.append(Array(events[0..<6]))
        try await widget.append(Array(events[6..<12]))

        #expect(await widget.evictedCount() == 2)
        #expect(await widget.count() == 10)
        try await app.append([events[12]])
        #expect(await app.evictedCount() == 1)
        #expect(await app.count() == 10)
        #expect(try await app.peek(limit: 100) == Array(events[3...]))
    }

    /// The byte limit too: both instances' events count against it.
    @Test func theByteLimitCountsTheOtherProcessesEvents() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let events = EventCacheConformance.numberedEvents(1...8)
        // Measure one event's stored size on a scratch file: the limit holds exactly five.
        let scratch = try SQLiteEventCache(fileURL: directory.file("scratch.sqlite"))
        try await scratch.append([events[0]])
        let oneEvent = try #require(try storedBytes(at: directory.file("scratch.sqlite")))
        let app = try SQLiteEventCache(fileURL: url, maxBytes: 5 * oneEvent)
        let widget = try SQLiteEventCache(fileURL: url, maxBytes: 5 * oneEvent, leaseProcess: getppid())

        try await app.append(Array(events[0..<4]))
        try await widget.append(Array(events[4..<8]))

        #expect(await widget.evictedCount() == 3)
        #expect(try await widget.peek(limit: 100) == Array(events[3...]))
    }

    /// A writer that keeps no totals (a tool, or an instance that believed itself alone):
    /// each of its commits leaves the totals row's stamp as it was, and the cache counts the
    /// rows instead of trusting the row, the first time and every time after.
    @Test func commitsThatLeaveTheTotalsBehindAreCounted() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let cache = try SQLiteEventCache(fileURL: url)
        let events = EventCacheConformance.numberedEvents(1...6)
        try await cache.append(events)

        try executeSQL(at: url, "DELETE FROM events WHERE seq <= 2;")
        #expect(try await cache.peek(limit: 1) == [events[2]])
        #expect(await cache.count() == 4)
        try executeSQL(at: url, "DELETE FROM events WHERE seq = 6;")
        #expect(try await cache.peek(limit: 10) == Array(events[2..<5]))
        #expect(await cache.count() == 3)
        // Its own writes keep the row current for the others.
        try await cache.append([events[5]])
        #expect(try queryInt(at: url, "SELECT count FROM totals") == 4)
    }

    /// Another process emptied the queue (which drops the stored metadata) and appended
    /// events with other metadata, reusing the freed ids: an instance that remembered the old
    /// ids must not attach its events to the other's metadata.
    @Test func metadataDroppedByTheOtherProcessIsStoredAgain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let app = try SQLiteEventCache(fileURL: url)
        let widget = try SQLiteEventCache(fileURL: url, leaseProcess: getppid())
        let appEvents = [event("App.1", user: "user-a"), event("App.2", user: "user-a")]
        let widgetEvent = event("Widget.1", user: "user-b")

        try await app.append([appEvents[0]])
        let sent = try await widget.peek(limit: 10)
        #expect(sent == [appEvents[0]])
        try await widget.remove(ids: sent.map(\.id))
        try await widget.append([widgetEvent])
        try await app.append([appEvents[1]])

        let queued = try await widget.peek(limit: 10)
        #expect(queued == [widgetEvent, appEvents[1]])
        #expect(queued.map(\.clientUser) == ["user-b", "user-a"])
    }

    /// A damaged file that another process has open is not moved aside under it (the other
    /// process would go on writing to the moved file, and its events would be lost): the call
    /// fails with an error saying so, the file stays, and once the other process is gone the
    /// next call recovers.
    @Test func aDamagedFileIsNotReplacedWhileAnotherProcessHasItOpen() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let logger = RecordingLogger()
        let app = try SQLiteEventCache(fileURL: url, logger: logger)
        var widget: SQLiteEventCache? = try SQLiteEventCache(fileURL: url, leaseProcess: getppid())
        let events = EventCacheConformance.numberedEvents(1...12)
        try await app.append(Array(events[0..<10]))
        // The other process sends (and holds the lease until it closes).
        #expect(try await widget?.peek(limit: 1) == [events[0]])
        try damagePageWhileOpen(rootPage(of: "events_id", at: url), of: url)

        let error = await #expect(throws: EventCacheError.self) {
            try await app.append(Array(events[10..<11]))
        }
        #expect(
            error?.description
                == "Cannot append to the SQLite event cache: the file is damaged or unreadable (database disk image "
                + "is malformed (SQLite result code 11)), and another process has it open: it stays in place until "
                + "this process is the only one using it (the next call tries again) (\(url.path))"
        )
        #expect(!FileManager.default.fileExists(atPath: url.path + ".corrupt"))
        #expect(app.recoveredCorruptions == 0)

        widget = nil
        try await app.append(Array(events[11...]))
        #expect(app.recoveredCorruptions == 1)
        #expect(FileManager.default.fileExists(atPath: url.path + ".corrupt"))
        let queued = try await app.peek(limit: 100)
        #expect(queued.map(\.type) == (Array(events[0..<10]) + Array(events[11...])).map(\.type))
    }

    private func event(_ type: String, user: String) -> Event {
        Event(
            appID: "SHARED-APP",
            type: type,
            clientUser: user,
            sessionID: "session-\(user)",
            receivedAt: Date(timeIntervalSince1970: 1_718_460_000),
            payload: ["source": .string(user)]
        )
    }
}

/// The bytes of event data in a cache file, as the byte limit counts them.
private func storedBytes(at url: URL) throws -> Int? {
    Int(try queryInt(at: url, "SELECT TOTAL(length(json)) + 32 * COUNT(*) FROM events"))
}
