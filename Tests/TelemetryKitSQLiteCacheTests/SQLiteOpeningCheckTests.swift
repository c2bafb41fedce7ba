import Foundation
import TelemetryKit
import TelemetryKitSQLiteCache
import TelemetryKitTesting
import Testing

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// Opening runs on the cache's I/O queue as its first job and checks every page there, so no
/// append or read meets a damaged file unchecked, and the initialiser does no file work
/// beyond creating the file.
struct SQLiteOpeningCheckTests {
    /// The oldest rows' page is damaged: the opening finds it before the first append, moves
    /// the file aside (the salvage reads nothing past that first page), and the appends land
    /// in the fresh database.
    @Test func theOpeningFindsDamageBeforeTheFirstAppend() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        try await fillAndClose(url, with: EventCacheConformance.numberedEvents(1...300))
        let oldestPage = try queryInt(
            at: url,
            "SELECT pageno FROM dbstat WHERE name = 'events' AND pagetype = 'leaf' ORDER BY path LIMIT 1"
        )
        try damagePage(Int(oldestPage), of: url)
        let logger = RecordingLogger()
        let cache = try SQLiteEventCache(fileURL: url, logger: logger)
        try await cache.opened()
        #expect(cache.recoveredCorruptions == 1)
        #expect(logger.entries.count == 1)
        #expect(logger.entries.first?.message.contains("none of its events could be read") == true)

        let later = EventCacheConformance.numberedEvents(301...303)
        try await cache.append(later)
        #expect(try await cache.peek(limit: 1_000) == later)
        #expect(await cache.count() == 3)
        let reopened = try SQLiteEventCache(fileURL: url, logger: logger)
        #expect(try await reopened.peek(limit: 1_000) == later)
        #expect(reopened.recoveredCorruptions == 0)
    }

    #if os(Linux)
    /// A file that cannot be opened now (a link to /dev/full, where every write fails): the
    /// initialiser returns, `opened()` and every call fail with the opening's error, and once
    /// the file is usable the next call opens it.
    @Test func aFailedOpeningFailsTheCallsAndTheNextCallOpensAgain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        try FileManager.default.createSymbolicLink(atPath: url.path, withDestinationPath: "/dev/full")

        let logger = RecordingLogger()
        let cache = try SQLiteEventCache(fileURL: url, logger: logger)
        let error = await #expect(throws: EventCacheError.self) { try await cache.opened() }
        #expect(error?.description.hasPrefix("Cannot open the SQLite event cache: ") == true)
        #expect(error?.description.contains("database or disk is full") == true)
        await #expect(throws: EventCacheError.self) {
            try await cache.append(EventCacheConformance.numberedEvents(4...4))
        }
        #expect(await cache.count() == 0)
        #expect(logger.entries.isEmpty)  // the calls report the failure; the cache does not log it too

        try FileManager.default.removeItem(at: url)
        try await cache.append(EventCacheConformance.numberedEvents(5...5))
        #expect(try await cache.peek(limit: 10).map(\.type) == ["Conformance.5"])
        #expect(await cache.count() == 1)
    }
    #endif
}

/// Appends `events` to a cache at `url`, closes it, and waits until the last connection has
/// copied the log into the file and deleted it.
func fillAndClose(_ url: URL, with events: [Event]) async throws {
    do {
        let cache = try SQLiteEventCache(fileURL: url, logger: RecordingLogger())
        try await cache.append(events)
    }
    for _ in 0..<100 where FileManager.default.fileExists(atPath: url.path + "-wal") {
        try await Task.sleep(for: .milliseconds(20))
    }
}
