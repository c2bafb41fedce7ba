import Foundation
import TelemetryKit
import TelemetryKitClient
import TelemetryKitSQLiteCache
import TelemetryKitTesting
import Testing

#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

/// The intake journal of the SQLite cache (`synchronous: .normal`): an awaited append is
/// durable against a process kill without waiting for its commit. The tests hold SQLite's
/// write lock from another connection, as another process would, so that the commit cannot
/// happen while they look at the journal.
@Suite struct SQLiteIntakeJournalTests {
    @Test func anAwaitedAppendReturnsWhileTheDatabaseIsLockedAndIsReadAfterTheLockIsGone() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let cache = try SQLiteEventCache(fileURL: url, logger: RecordingLogger())
        _ = try await cache.peek(limit: 1)  // the journal is open once the I/O queue got here
        let events = EventCacheConformance.numberedEvents(1...3)

        let lock = try WriteLockHolder(url)
        // Without the journal this would wait for the commit, which waits for the lock.
        try await cache.appendOnCallersExecutor(events, callerWaits: true)
        let journal = try #require(journalFiles(in: directory).first)
        #expect(try queryInt(at: url, "SELECT count(*) FROM events") == 0)
        // What a kill -9 now would leave: the journal holds the three events.
        let copied = directory.file("copy.sqlite-intake-dead")
        try FileManager.default.copyItem(at: directory.file(journal), to: copied)
        lock.release()

        #expect(try await cache.peek(limit: 10) == events)
        let fromTheCopy = try SQLiteEventCache(fileURL: directory.file("copy.sqlite"), logger: RecordingLogger())
        #expect(try await fromTheCopy.peek(limit: 10) == events)
        #expect(!FileManager.default.fileExists(atPath: copied.path))  // replayed, then deleted
    }

    @Test func eventsOfADeadInstancesJournalAreAppendedOnceAfterTheCommittedOnes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let events = EventCacheConformance.numberedEvents(1...4)
        // The dead instance committed the first two and journaled all four before it died.
        do {
            let committed = try SQLiteEventCache(fileURL: url, logger: RecordingLogger())
            try await committed.append(Array(events.prefix(2)))
        }
        try await leaveDeadInstancesJournal(with: events, nextTo: "events.sqlite", in: directory)

        let logger = RecordingLogger()
        let reopened = try SQLiteEventCache(fileURL: url, logger: logger)
        #expect(try await reopened.peek(limit: 10) == events)
        #expect(await reopened.count() == 4)
        #expect(logger.messages(at: .info).contains { $0.contains("Appended 2 event(s)") })
        // The copy is gone once replayed; the earlier instance's own once it closed.
        #expect(
            await conditionHolds { journalFiles(in: directory).filter { $0.hasPrefix("events.sqlite") }.count == 1 }
        )
    }

    @Test func closingTheCacheDeletesItsJournalAndAFullSyncCacheHasNone() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        do {
            let cache = try SQLiteEventCache(fileURL: directory.file("normal.sqlite"), logger: RecordingLogger())
            _ = try await cache.peek(limit: 1)
            try await cache.appendOnCallersExecutor(EventCacheConformance.numberedEvents(1...2), callerWaits: true)
            #expect(journalFiles(in: directory).count == 1)
            #expect(try await cache.peek(limit: 10).count == 2)
        }
        #expect(await conditionHolds { journalFiles(in: directory).isEmpty })

        let full = try SQLiteEventCache(
            fileURL: directory.file("full.sqlite"),
            synchronous: .full,
            logger: RecordingLogger()
        )
        _ = try await full.peek(limit: 1)
        try await full.appendOnCallersExecutor(EventCacheConformance.numberedEvents(1...2), callerWaits: true)
        #expect(journalFiles(in: directory).isEmpty)
        #expect(try await full.peek(limit: 10).count == 2)
    }

    /// A relaunched app opens the queue while its extension is still appending the events
    /// the app's previous, killed, process had left in its journal: the app's new events are
    /// committed after those, not between or ahead of them.
    @Test func anInstanceOpeningDuringAnothersReplayAppendsAfterTheReplayedEvents() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        _ = try SQLiteEventCache(fileURL: url, logger: RecordingLogger())
        let dead = EventCacheConformance.numberedEvents(1...3)
        try await leaveDeadInstancesJournal(with: dead, nextTo: "events.sqlite", in: directory)

        // The replay waits for the write lock; the other instance opens meanwhile.
        let lock = try WriteLockHolder(url)
        let replaying = try SQLiteEventCache(fileURL: url, logger: RecordingLogger())
        try await Task.sleep(for: .milliseconds(200))
        let relaunched = try SQLiteEventCache(fileURL: url, logger: RecordingLogger())
        let new = EventCacheConformance.numberedEvents(4...6)
        let appending = Task { try await relaunched.appendOnCallersExecutor(new, callerWaits: true) }
        try await Task.sleep(for: .milliseconds(200))
        lock.release()
        try await appending.value
        await replaying.waitForQueuedWork()
        await relaunched.waitForQueuedWork()

        #expect(try await relaunched.peek(limit: 10) == dead + new)
    }

    /// The client passes `callerWaits` for an awaited `send` only: its intake task's groups
    /// wait for their commits (and are committed in groups).
    @Test func theClientsAwaitedSendIsJournaledAndItsFireAndForgetIsNot() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let cache = try SQLiteEventCache(fileURL: url, logger: RecordingLogger())
        _ = try await cache.peek(limit: 1)
        let client = TelemetryClient(
            configuration: TelemetryClient.Configuration(appID: "JOURNAL-APP"),
            // Nothing is sent while the test looks (a loaded machine can take longer than
            // the default 10 s flush interval; a sent batch leaves the cache).
            destinations: [
                Destination(
                    id: "main",
                    transmitter: SpyEventTransmitter(),
                    cache: cache,
                    policy: DeliveryPolicy(flushInterval: 3600)
                )
            ],
            storage: InMemoryProcessorStorage(),
            logger: RecordingLogger()
        )
        await client.start()

        let lock = try WriteLockHolder(url)
        #expect(await client.send("Awaited.event") == .cached)
        client.event("FireAndForget.event")
        // The fire-and-forget event waits for a commit behind the lock: not in the journal.
        try await Task.sleep(for: .milliseconds(100))
        let journal = try #require(journalFiles(in: directory).first)
        let bytes = try Data(contentsOf: directory.file(journal))
        #expect(bytes.range(of: Data("Awaited.event".utf8)) != nil)
        #expect(bytes.range(of: Data("FireAndForget.event".utf8)) == nil)
        lock.release()
        await client.waitUntilProcessed()
        #expect(try await cache.peek(limit: 10).map(\.type) == ["Awaited.event", "FireAndForget.event"])
        await client.shutdown()
    }
}

/// Leaves in `directory` what an instance of the cache file `cacheName` killed after
/// journaling `events`, and before committing them, leaves: its intake journal, unlocked.
func leaveDeadInstancesJournal(
    with events: [Event],
    nextTo cacheName: String,
    in directory: TemporaryDirectory
) async throws {
    let other = directory.file("journal-source-\(UUID().uuidString).sqlite")
    let writer = try SQLiteEventCache(fileURL: other, logger: RecordingLogger())
    _ = try await writer.peek(limit: 1)
    let lock = try WriteLockHolder(other)
    defer { lock.release() }
    try await writer.appendOnCallersExecutor(events, callerWaits: true)
    let journal = try #require(journalFiles(in: directory).first { $0.hasPrefix(other.lastPathComponent) })
    try FileManager.default.copyItem(
        at: directory.file(journal),
        to: directory.file("\(cacheName)-intake-\(UUID().uuidString)")
    )
}

/// The names of the intake journals in `directory`.
func journalFiles(in directory: TemporaryDirectory) -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.url.path)) ?? []
    return names.filter { $0.contains("-intake-") && !$0.contains(".corrupt") }.sorted()
}

/// SQLite's write lock on a database, held by a connection of its own (as another process
/// would hold it) until ``release()``.
final class WriteLockHolder {
    private var handle: OpaquePointer?

    init(_ url: URL) throws {
        guard sqlite3_open_v2(url.path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            sqlite3_close_v2(handle)
            throw SQLiteTestError(description: "cannot open \(url.path)")
        }
        sqlite3_busy_timeout(handle, 5000)
        guard sqlite3_exec(handle, "BEGIN EXCLUSIVE", nil, nil, nil) == SQLITE_OK else {
            sqlite3_close_v2(handle)
            throw SQLiteTestError(description: "cannot lock \(url.path)")
        }
    }

    func release() {
        guard let handle else { return }
        sqlite3_exec(handle, "COMMIT", nil, nil, nil)
        sqlite3_close_v2(handle)
        self.handle = nil
    }

    deinit { release() }
}
