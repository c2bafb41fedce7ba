import Foundation
import TelemetryKit
import TelemetryKitSQLiteCache
import TelemetryKitTesting
import Testing

#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

struct SQLiteEventCacheTests {
    static let synchronousModes: [SQLiteEventCache.Synchronous] = [.full, .normal]

    @Test(arguments: EventCacheConformance.Check.allCases, synchronousModes)
    func conformance(_ check: EventCacheConformance.Check, synchronous: SQLiteEventCache.Synchronous) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logger = RecordingLogger()
        let conformance = EventCacheConformance { limit in
            let url = directory.file("\(UUID().uuidString).sqlite")
            let cache = try SQLiteEventCache(fileURL: url, limit: limit, synchronous: synchronous, logger: logger)
            return EventCacheConformance.Subject(cache) {
                try SQLiteEventCache(fileURL: url, limit: limit, synchronous: synchronous, logger: logger)
            }
        }
        try await conformance.run(check)
        // Only the eviction check fills a cache, and that is logged.
        #expect(logger.warnings.filter { !$0.contains("is full") } == [])
    }

    @Test func randomBytesAreMovedAsideAndTheCacheStartsEmpty() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let garbage = Data(deterministicBytes(count: 8192, seed: 42))
        try garbage.write(to: url)
        let logger = RecordingLogger()

        let cache = try SQLiteEventCache(fileURL: url, logger: logger)

        #expect(await cache.count() == 0)
        #expect(try Data(contentsOf: directory.file("events.sqlite.corrupt")) == garbage)
        #expect(logger.warnings.count == 1)
        #expect(logger.warnings.first?.contains(url.path + ".corrupt") == true)
        let events = EventCacheConformance.numberedEvents(1...3)
        try await cache.append(events)
        #expect(try await cache.peek(limit: 10) == events)

        let reopened = try SQLiteEventCache(fileURL: url, logger: logger)
        #expect(try await reopened.peek(limit: 10) == events)
        #expect(logger.warnings.count == 1)
    }

    @Test func aDatabaseWithAnotherSchemaIsMovedAside() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        try executeSQL(at: url, "CREATE TABLE events (name TEXT, value INTEGER); INSERT INTO events VALUES ('a', 1);")
        let logger = RecordingLogger()

        let cache = try SQLiteEventCache(fileURL: url, logger: logger)

        #expect(await cache.count() == 0)
        #expect(FileManager.default.fileExists(atPath: url.path + ".corrupt"))
        #expect(logger.warnings.count == 1)
        try await cache.append(EventCacheConformance.numberedEvents(1...2))
        #expect(await cache.count() == 2)
    }

    @Test func anUnwritableDirectoryThrowsATypedErrorWithThePath() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // A regular file where a directory should be: fails even for root.
        let blocker = directory.file("blocker")
        try Data("not a directory".utf8).write(to: blocker)
        let url = blocker.appendingPathComponent("nested").appendingPathComponent("events.sqlite")

        let error = #expect(throws: EventCacheError.self) {
            try SQLiteEventCache(fileURL: url)
        }
        #expect(error?.path?.hasPrefix(blocker.path) == true)
        #expect(error?.description.contains(blocker.path) == true)
    }

    @Test func usesWALModeAndCreatesTheFileForTheOwnerOnly() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("nested/dir/events.sqlite")
        let cache = try SQLiteEventCache(fileURL: url)
        try await cache.append(EventCacheConformance.numberedEvents(1...2))

        #expect(FileManager.default.fileExists(atPath: url.path + "-wal"))
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
    }

    @Test func maxEventAgeDropsOldEventsBeforePeekingAndCountsThem() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let clock = ManualClock()
        let now = clock.now
        func event(_ type: String, age: TimeInterval) -> Event {
            Event(appID: "APP", type: type, clientUser: "u", receivedAt: now.addingTimeInterval(-age))
        }
        let old1 = event("old1", age: 7200)
        let fresh1 = event("fresh1", age: 10)
        let old2 = event("old2", age: 5000)
        let fresh2 = event("fresh2", age: 0)
        do {
            let cache = try SQLiteEventCache(fileURL: url, maxEventAge: 3600, clock: clock)
            try await cache.append([old1, fresh1, old2, fresh2])
            #expect(await cache.count() == 4)
            // Pruning ran when the cache opened; it runs again a minute later at the earliest.
            #expect(try await cache.peek(limit: 10) == [old1, fresh1, old2, fresh2])
            clock.advance(by: 60)

            #expect(try await cache.peek(limit: 10) == [fresh1, fresh2])
            #expect(await cache.evictedCount() == 2)
            #expect(await cache.count() == 2)

            // Now the cutoff is exactly fresh2's date: older is dropped, equal stays.
            clock.advance(by: 3540)
            #expect(try await cache.peek(limit: 10) == [fresh2])
            #expect(await cache.evictedCount() == 3)
        }
        clock.advance(by: 1)
        let reopened = try SQLiteEventCache(fileURL: url, maxEventAge: 3600, clock: clock)
        #expect(await reopened.count() == 0)
        #expect(await reopened.evictedCount() == 1)
    }

    @Test func aLowerLimitOnReopeningEvictsTheOldest() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let events = EventCacheConformance.numberedEvents(1...10)
        do {
            let cache = try SQLiteEventCache(fileURL: url, limit: 100)
            try await cache.append(events)
        }
        let reopened = try SQLiteEventCache(fileURL: url, limit: 4)
        #expect(await reopened.count() == 4)
        #expect(await reopened.evictedCount() == 6)
        #expect(try await reopened.peek(limit: 10) == Array(events.suffix(4)))
    }

    @Test func anUndecodableRowIsDroppedWithAWarning() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let logger = RecordingLogger()
        let cache = try SQLiteEventCache(fileURL: url, logger: logger)
        let events = EventCacheConformance.numberedEvents(1...3)
        try await cache.append(events)
        try executeSQL(at: url, "UPDATE events SET json = '{\"id\": garbage' WHERE seq = 2;")

        #expect(try await cache.peek(limit: 10) == [events[0], events[2]])
        #expect(await cache.count() == 2)
        #expect(logger.warnings.count == 1)
        #expect(logger.warnings.first?.contains("1 unreadable event") == true)
        #expect(try await cache.peek(limit: 10) == [events[0], events[2]])
        #expect(logger.warnings.count == 1)
    }

    @Test func removingAPrefixOfTheLastReadKeepsEverythingElse() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try SQLiteEventCache(fileURL: directory.file("events.sqlite"))
        let events = EventCacheConformance.numberedEvents(1...13)
        try await cache.append(Array(events[0..<10]))
        let batch = try await cache.peek(limit: 6)
        try await cache.append(Array(events[10..<12]))

        // Half of a split batch, then the other half.
        try await cache.remove(ids: batch[0..<3].map(\.id))
        #expect(try await cache.peek(limit: 100) == Array(events[3..<12]))
        try await cache.remove(ids: batch[3..<6].map(\.id))
        #expect(try await cache.peek(limit: 100) == Array(events[6..<12]))

        // Not a prefix of what was read.
        _ = try await cache.peek(limit: 3)
        try await cache.remove(ids: [events[7].id])
        try await cache.remove(ids: [events[6].id, events[8].id])
        #expect(try await cache.peek(limit: 100) == Array(events[9..<12]))
        #expect(await cache.count() == 3)

        // A stale read: the rows it saw are gone, later rows must stay.
        _ = try await cache.peek(limit: 1)
        try await cache.removeAll()
        try await cache.append([events[12]])
        try await cache.remove(ids: [events[9].id])
        #expect(try await cache.peek(limit: 100) == [events[12]])
        #expect(await cache.count() == 1)
    }

    @Test func removingTheDispatchersBatchLeavesTheRestInOrder() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try SQLiteEventCache(fileURL: directory.file("events.sqlite"))
        let events = EventCacheConformance.numberedEvents(1...250)
        try await cache.append(events)
        var delivered: [Event] = []
        while true {
            let batch = try await cache.peek(limit: 100)
            if batch.isEmpty { break }
            delivered += batch
            try await cache.remove(ids: batch.map(\.id))
        }
        #expect(delivered == events)
        #expect(await cache.count() == 0)
    }
}

/// Bytes from a fixed-seed generator, so "random" files are the same in every run.
func deterministicBytes(count: Int, seed: UInt64) -> [UInt8] {
    var state = seed
    return (0..<count).map { _ in
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return UInt8(truncatingIfNeeded: state >> 33)
    }
}

struct SQLiteTestError: Error, CustomStringConvertible {
    var description: String
}

/// Runs SQL on the file through a separate connection, the way another tool would.
func executeSQL(at url: URL, _ sql: String) throws {
    var handle: OpaquePointer?
    guard sqlite3_open_v2(url.path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nil) == SQLITE_OK else {
        sqlite3_close_v2(handle)
        throw SQLiteTestError(description: "cannot open \(url.path)")
    }
    defer { sqlite3_close_v2(handle) }
    // The cache may be writing (its idle checkpoint): wait for it as its own connection does.
    sqlite3_busy_timeout(handle, 5000)
    var message: UnsafeMutablePointer<CChar>?
    let result = sqlite3_exec(handle, sql, nil, nil, &message)
    defer { sqlite3_free(message) }
    guard result == SQLITE_OK else {
        throw SQLiteTestError(description: message.map { String(cString: $0) } ?? "error \(result)")
    }
}

/// The first column of the first row of `sql`, through a separate connection.
func queryInt(at url: URL, _ sql: String) throws -> Int64 {
    var handle: OpaquePointer?
    guard sqlite3_open_v2(url.path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK, let handle else {
        sqlite3_close_v2(handle)
        throw SQLiteTestError(description: "cannot open \(url.path)")
    }
    defer { sqlite3_close_v2(handle) }
    var statement: OpaquePointer?
    defer { sqlite3_finalize(statement) }
    guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, sqlite3_step(statement) == SQLITE_ROW
    else {
        throw SQLiteTestError(description: "\(sql): \(String(cString: sqlite3_errmsg(handle)))")
    }
    return sqlite3_column_int64(statement, 0)
}
