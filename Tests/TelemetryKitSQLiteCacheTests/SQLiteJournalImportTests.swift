import Foundation
import TelemetryKit
import TelemetryKitSQLiteCache
import TelemetryKitSupport
import TelemetryKitTesting
import Testing

#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Intake journals that an earlier version left beside the cache file (its process was
/// killed between journaling awaited events and committing them) are imported once, in
/// order, when the file is opened. The journals here are written byte by byte in that
/// version's format 1; `FormatUpgradeTests` imports one the earlier version wrote itself.
@Suite struct SQLiteJournalImportTests {
    @Test func aJournalsEventsAreAppendedOnceAfterTheCommittedOnesAndTheJournalIsDeleted() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let events = EventCacheConformance.numberedEvents(1...4)
        // The dead instance committed the first two and journaled all four before it died.
        do {
            let committed = try SQLiteEventCache(fileURL: url, logger: RecordingLogger())
            try await committed.append(Array(events.prefix(2)))
        }
        try writeLegacyJournal(events, to: directory.file("events.sqlite-intake-A"))

        let logger = RecordingLogger()
        let reopened = try SQLiteEventCache(fileURL: url, logger: logger)
        #expect(try await reopened.peek(limit: 10) == events)
        #expect(await reopened.count() == 4)
        #expect(logger.messages(at: .info).contains { $0.contains("Appended 2 event(s)") })
        #expect(journalFiles(in: directory).isEmpty)
    }

    /// Entries past the committed offset only; an entry cut short ends the import with a
    /// warning, and the entries before it are kept.
    @Test func committedEntriesAreSkippedAndADamagedTailEndsTheImportWithAWarning() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let events = EventCacheConformance.numberedEvents(1...3)
        let journal = directory.file("events.sqlite-intake-B")
        try writeLegacyJournal(events, committed: 1, cutLastEntryShort: true, to: journal)

        let logger = RecordingLogger()
        let cache = try SQLiteEventCache(fileURL: directory.file("events.sqlite"), logger: logger)
        #expect(try await cache.peek(limit: 10) == [events[1]])
        #expect(logger.messages(at: .warning).contains { $0.contains("ends in damaged data") })
        #expect(journalFiles(in: directory).isEmpty)
    }

    @Test func aFileThatIsNotAJournalIsMovedAsideWithAWarning() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        try Data(repeating: 0x41, count: 100).write(to: directory.file("events.sqlite-intake-C"))

        let logger = RecordingLogger()
        let cache = try SQLiteEventCache(fileURL: directory.file("events.sqlite"), logger: logger)
        #expect(await cache.count() == 0)
        #expect(logger.messages(at: .warning).contains { $0.contains("is not an intake journal (no TKINTAKE header)") })
        #expect(FileManager.default.fileExists(atPath: directory.file("events.sqlite-intake-C.corrupt").path))
    }

    /// A journal locked by a live process (an extension of the earlier version still running
    /// beside the updated app) is left for a later opening.
    @Test func aJournalALiveProcessHoldsIsLeftForALaterOpening() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let journal = directory.file("events.sqlite-intake-D")
        try writeLegacyJournal(EventCacheConformance.numberedEvents(1...2), to: journal)
        let descriptor = open(journal.path, O_RDWR)
        #expect(flock(descriptor, LOCK_EX) == 0)

        do {
            let first = try SQLiteEventCache(fileURL: url, logger: RecordingLogger())
            #expect(await first.count() == 0)
        }
        #expect(journalFiles(in: directory) == ["events.sqlite-intake-D"])
        close(descriptor)

        let second = try SQLiteEventCache(fileURL: url, logger: RecordingLogger())
        #expect(try await second.peek(limit: 10).map(\.type) == ["Conformance.1", "Conformance.2"])
    }

    /// A relaunched app opens the queue while its extension is still importing the events the
    /// app's previous, killed, process had left in its journal: the app's new events are
    /// committed after those, not between or ahead of them.
    @Test func anInstanceOpeningDuringAnothersImportAppendsAfterTheImportedEvents() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        try await SQLiteEventCache(fileURL: url, logger: RecordingLogger()).opened()
        let dead = EventCacheConformance.numberedEvents(1...3)
        try writeLegacyJournal(dead, to: directory.file("events.sqlite-intake-E"))

        // The import waits for the write lock; the other instance opens meanwhile.
        let lock = try WriteLockHolder(url)
        let importing = try SQLiteEventCache(fileURL: url, logger: RecordingLogger())
        try await Task.sleep(for: .milliseconds(200))
        let relaunched = try SQLiteEventCache(fileURL: url, logger: RecordingLogger())
        let new = EventCacheConformance.numberedEvents(4...6)
        let appending = Task { try await relaunched.append(new) }
        try await Task.sleep(for: .milliseconds(200))
        lock.release()
        try await appending.value
        await importing.waitForQueuedWork()

        #expect(try await relaunched.peek(limit: 10) == dead + new)
    }

    /// No journal any more: an awaited append returns once its commit is done, so while
    /// another connection holds the write lock it waits, and it leaves no file beside the cache.
    @Test func anAwaitedAppendReturnsOnceCommittedAndWritesNoJournal() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let cache = try SQLiteEventCache(fileURL: url, logger: RecordingLogger())
        try await cache.opened()
        let lock = try WriteLockHolder(url)
        let returned = Locked(false)
        let appending = Task {
            try await cache.append(EventCacheConformance.numberedEvents(1...2))
            returned.set(true)
        }
        try await Task.sleep(for: .milliseconds(200))
        #expect(!returned.current)
        #expect(try queryInt(at: url, "SELECT count(*) FROM events") == 0)
        lock.release()
        try await appending.value
        #expect(try queryInt(at: url, "SELECT count(*) FROM events") == 2)
        #expect(journalFiles(in: directory).isEmpty)
    }
}

/// Writes `events` as an intake journal of format 1, the earlier version's: a 64-byte header
/// (`TKINTAKE`, version 1, the offsets of the first uncommitted entry and of the end), then
/// each event as a 32-bit little-endian length and its JSON.
func writeLegacyJournal(
    _ events: [Event],
    committed: Int = 0,
    cutLastEntryShort: Bool = false,
    to url: URL
) throws {
    func littleEndian<Integer: FixedWidthInteger>(_ value: Integer) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }
    var entries: [UInt8] = []
    var committedOffset = 64
    for (index, event) in events.enumerated() {
        var json: [UInt8] = []
        EventJSONCodec.encode(event, into: &json)
        entries += littleEndian(UInt32(json.count)) + json
        if index < committed { committedOffset = 64 + entries.count }
    }
    let end = 64 + entries.count
    if cutLastEntryShort { entries.removeLast(10) }
    var header = Array("TKINTAKE".utf8) + littleEndian(UInt32(1)) + [0, 0, 0, 0]
    header += littleEndian(UInt64(committedOffset)) + littleEndian(UInt64(end))
    header += [UInt8](repeating: 0, count: 64 - header.count)
    try Data(header + entries).write(to: url)
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
