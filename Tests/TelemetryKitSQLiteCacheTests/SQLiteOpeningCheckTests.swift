import Foundation
import TelemetryKit
import TelemetryKitSQLiteCache
import TelemetryKitTesting
import Testing

/// The check of every page runs after opening, not during it (issue 27: nothing at launch in
/// proportion to the queue), so appends can reach a damaged file before the check finds the
/// damage. They must survive its replacement all the same.
struct SQLiteOpeningCheckTests {
    /// The oldest rows' page is damaged: an append (which only touches the newest page) goes
    /// through, the check that the first peek runs finds the damage, the salvage reads nothing
    /// past that first page, and the events appended since opening are written back.
    @Test func eventsAppendedBeforeTheCheckFindsDamageAreKept() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let events = EventCacheConformance.numberedEvents(1...300)
        do {
            let cache = try SQLiteEventCache(fileURL: url, logger: RecordingLogger())
            try await cache.append(events)
        }
        // The last connection copies the log into the file and deletes it when it closes.
        for _ in 0..<100 where FileManager.default.fileExists(atPath: url.path + "-wal") {
            try await Task.sleep(for: .milliseconds(20))
        }
        let leafPages = try queryInt(
            at: url,
            "SELECT COUNT(*) FROM dbstat WHERE name = 'events' AND pagetype = 'leaf'"
        )
        #expect(leafPages > 2)
        let oldestPage = try queryInt(
            at: url,
            "SELECT pageno FROM dbstat WHERE name = 'events' AND pagetype = 'leaf' ORDER BY path LIMIT 1"
        )
        try damagePage(Int(oldestPage), of: url)
        let logger = RecordingLogger()
        // The check runs when the peek asks for it, however slowly a loaded machine gets there.
        let cache = try SQLiteEventCache(
            fileURL: url,
            logger: logger,
            leaseProcess: ProcessInfo.processInfo.processIdentifier,
            verificationDelay: .seconds(3_600)
        )
        let later = EventCacheConformance.numberedEvents(301...303)

        try await cache.append(later)
        #expect(logger.entries.isEmpty)  // the damage is not found yet

        #expect(try await cache.peek(limit: 1_000) == later)
        #expect(cache.recoveredCorruptions == 1)
        #expect(logger.entries.count == 1)
        #expect(logger.entries.first?.message.contains("none of its events could be read") == true)
        #expect(await cache.count() == 3)
        let reopened = try SQLiteEventCache(fileURL: url, logger: logger)
        #expect(try await reopened.peek(limit: 1_000) == later)
        #expect(reopened.recoveredCorruptions == 0)
    }

    /// Events removed before the check finds damage are not written back by the recovery.
    @Test func eventsRemovedBeforeTheCheckStayRemoved() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        do {
            let cache = try SQLiteEventCache(fileURL: url, logger: RecordingLogger())
            try await cache.append(EventCacheConformance.numberedEvents(1...300))
        }
        for _ in 0..<100 where FileManager.default.fileExists(atPath: url.path + "-wal") {
            try await Task.sleep(for: .milliseconds(20))
        }
        let oldestPage = try queryInt(
            at: url,
            "SELECT pageno FROM dbstat WHERE name = 'events' AND pagetype = 'leaf' ORDER BY path LIMIT 1"
        )
        try damagePage(Int(oldestPage), of: url)
        let cache = try SQLiteEventCache(fileURL: url, logger: RecordingLogger())
        let later = EventCacheConformance.numberedEvents(301...304)
        try await cache.append(later)
        try await cache.remove(ids: [later[0].id, later[2].id])

        #expect(try await cache.peek(limit: 1_000) == [later[1], later[3]])
        #expect(cache.recoveredCorruptions == 1)
    }
}
