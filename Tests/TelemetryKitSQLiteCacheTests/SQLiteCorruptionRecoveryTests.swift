import Foundation
import TelemetryKit
import TelemetryKitSQLiteCache
import TelemetryKitTesting
import Testing

/// Real SQLite files damaged the way a failing disk damages them: a page of the index, of
/// `sqlite_sequence` or of the table overwritten with garbage, or the header.
struct SQLiteCorruptionRecoveryTests {
    /// Schema objects whose damage `SELECT COUNT(*)` over the table does not notice, but every
    /// append (index, sequence) or removal (index) does.
    @Test(arguments: ["events_id", "sqlite_sequence"])
    func aDamagedPageIsFoundAtOpeningAndEveryEventIsKept(_ object: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let events = EventCacheConformance.numberedEvents(1...30)
        do {
            let cache = try SQLiteEventCache(fileURL: url)
            try await cache.append(events)
        }
        try damagePage(rootPage(of: object, at: url), of: url)
        let damaged = try Data(contentsOf: url)
        let logger = RecordingLogger()

        let cache = try SQLiteEventCache(fileURL: url, logger: logger)

        #expect(cache.recoveredCorruptions == 1)
        #expect(try Data(contentsOf: directory.file("events.sqlite.corrupt")) == damaged)
        #expect(logger.entries.count == 1)
        let message = try #require(logger.entries.first?.message)
        #expect(message.contains("at \(url.path) was damaged"))
        #expect(message.contains("moved it to \(url.path).corrupt and"))
        #expect(message.contains("kept its 30 event(s)"))
        // The table itself was intact: nothing is lost, and new events queue behind.
        #expect(await cache.count() == 30)
        let delivered = try await deliverThroughAClient(cache, sending: ["After.1", "After.2", "After.3"])
        #expect(delivered.map(\.type) == events.map(\.type) + ["After.1", "After.2", "After.3"])
        #expect(delivered.prefix(30).map(\.id) == events.map(\.id))
        #expect(await cache.count() == 0)
        #expect(logger.entries.count == 1)

        let reopened = try SQLiteEventCache(fileURL: url, logger: logger)
        #expect(reopened.recoveredCorruptions == 0)
        #expect(logger.entries.count == 1)
    }

    @Test func anAppendThatMeetsADamagedIndexLandsInTheFreshDatabase() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let logger = RecordingLogger()
        let cache = try SQLiteEventCache(fileURL: url, logger: logger)
        let events = EventCacheConformance.numberedEvents(1...13)
        try await cache.append(Array(events[0..<10]))
        try damagePageWhileOpen(rootPage(of: "events_id", at: url), of: url)

        try await cache.append(Array(events[10...]))

        #expect(cache.recoveredCorruptions == 1)
        #expect(logger.entries.map(\.message).count == 1)
        #expect(logger.entries.first?.message.contains("at \(url.path) was damaged") == true)
        #expect(logger.entries.first?.message.contains("moved it to \(url.path).corrupt and") == true)
        #expect(FileManager.default.fileExists(atPath: url.path + ".corrupt"))
        #expect(await cache.count() == 13)
        #expect(try await cache.peek(limit: 100) == events)
        try await cache.remove(ids: events[0..<5].map(\.id))
        #expect(try await cache.peek(limit: 100) == Array(events[5...]))
        #expect(await cache.count() == 8)
        #expect(cache.recoveredCorruptions == 1)

        let reopened = try SQLiteEventCache(fileURL: url, logger: logger)
        #expect(try await reopened.peek(limit: 100) == Array(events[5...]))
        #expect(logger.entries.count == 1)
    }

    /// Before recovery, this removal failed on every attempt: the batch was sent again and
    /// again and `flush()` never emptied the queue.
    @Test func aRemovalThatMeetsADamagedIndexStillEmptiesTheQueue() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let logger = RecordingLogger()
        let cache = try SQLiteEventCache(fileURL: url, logger: logger)
        let spy = SpyEventTransmitter()
        let client = TelemetryClient(
            configuration: TelemetryClient.Configuration(appID: "RECOVERY"),
            destinations: [Destination(id: "main", transmitter: spy, cache: cache)],
            storage: InMemoryProcessorStorage(),
            logger: logger
        )
        await client.start()
        for number in 1...12 { await client.send("Queued.\(number)") }
        #expect(await cache.count() == 12)
        try damagePageWhileOpen(rootPage(of: "events_id", at: url), of: url)

        #expect(await client.flush() == .complete)

        #expect(spy.deliveredEvents.map(\.type) == (1...12).map { "Queued.\($0)" })
        #expect(spy.batches.count == 1)
        #expect(await cache.count() == 0)
        #expect(cache.recoveredCorruptions == 1)
        #expect(logger.entries.count == 1)
        #expect(logger.entries.first?.message.contains("moved it to \(url.path).corrupt and") == true)
        await client.send("Later")
        #expect(await client.flush() == .complete)
        #expect(spy.deliveredEvents.last?.type == "Later")
        await client.shutdown()
        #expect(logger.entries.count == 1)
    }

    @Test func removeAllThatMeetsADamagedIndexEmptiesTheFreshDatabase() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let logger = RecordingLogger()
        let cache = try SQLiteEventCache(fileURL: url, logger: logger)
        try await cache.append(EventCacheConformance.numberedEvents(1...10))
        try damagePageWhileOpen(rootPage(of: "events_id", at: url), of: url)

        try await cache.removeAll()

        #expect(await cache.count() == 0)
        #expect(try await cache.peek(limit: 10) == [])
        #expect(cache.recoveredCorruptions == 1)
        #expect(logger.entries.count == 1)
        let later = EventCacheConformance.numberedEvents(11...12)
        try await cache.append(later)
        #expect(try await cache.peek(limit: 10) == later)
    }

    /// A damaged table page: its rows cannot be read back, but the cache goes on working.
    @Test func aPeekThatMeetsADamagedTableReturnsWhatIsLeftAndTheCacheGoesOn() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let logger = RecordingLogger()
        let cache = try SQLiteEventCache(fileURL: url, logger: logger)
        try await cache.append(EventCacheConformance.numberedEvents(1...10))
        try damagePageWhileOpen(rootPage(of: "events", at: url), of: url)

        #expect(try await cache.peek(limit: 10) == [])

        #expect(cache.recoveredCorruptions == 1)
        #expect(await cache.count() == 0)
        #expect(logger.entries.count == 1)
        #expect(logger.entries.first?.message.contains("none of its events could be read") == true)
        #expect(FileManager.default.fileExists(atPath: url.path + ".corrupt"))
        let later = EventCacheConformance.numberedEvents(11...13)
        try await cache.append(later)
        #expect(try await cache.peek(limit: 10) == later)
    }

    /// SQLITE_NOTADB: the header is garbage, so no page of the file can be read.
    @Test func aGarbageHeaderFoundAtOpeningIsMovedAsideWithoutReplacingAnOlderCopy() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        do {
            let cache = try SQLiteEventCache(fileURL: url)
            try await cache.append(EventCacheConformance.numberedEvents(1...5))
        }
        let olderCopy = Data("an older damaged copy".utf8)
        try olderCopy.write(to: directory.file("events.sqlite.corrupt"))
        try overwrite(url, at: 0, with: deterministicBytes(count: 100, seed: 7))
        let damaged = try Data(contentsOf: url)
        let logger = RecordingLogger()

        let cache = try SQLiteEventCache(fileURL: url, logger: logger)

        #expect(cache.recoveredCorruptions == 1)
        #expect(await cache.count() == 0)
        #expect(try Data(contentsOf: directory.file("events.sqlite.corrupt")) == olderCopy)
        #expect(try Data(contentsOf: directory.file("events.sqlite.corrupt.1")) == damaged)
        #expect(logger.entries.count == 1)
        let message = try #require(logger.entries.first?.message)
        #expect(message.contains("file is not a database"))
        #expect(message.contains("moved it to \(url.path).corrupt.1 and"))
        #expect(message.contains("none of its events could be read"))
        let later = EventCacheConformance.numberedEvents(6...8)
        try await cache.append(later)
        #expect(try await cache.peek(limit: 10) == later)
    }

    @Test func aGarbageHeaderFoundByAnAppendKeepsTheAppendedEvents() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let logger = RecordingLogger()
        let cache = try SQLiteEventCache(fileURL: url, logger: logger)
        try await cache.append(EventCacheConformance.numberedEvents(1...5))
        try checkpoint(url)
        try overwrite(url, at: 0, with: deterministicBytes(count: 100, seed: 7))

        let later = EventCacheConformance.numberedEvents(6...8)
        try await cache.append(later)

        #expect(cache.recoveredCorruptions == 1)
        #expect(logger.entries.count == 1)
        #expect(logger.entries.first?.message.contains("file is not a database") == true)
        #expect(logger.entries.first?.message.contains("moved it to \(url.path).corrupt and") == true)
        #expect(try await cache.peek(limit: 10) == later)
        #expect(await cache.count() == 3)
        try await cache.remove(ids: [later[0].id])
        #expect(try await cache.peek(limit: 10) == Array(later[1...]))
    }

    @Test func damageTwiceKeepsBothCopiesAndCountsTwice() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let logger = RecordingLogger()
        let cache = try SQLiteEventCache(fileURL: url, logger: logger)
        let events = EventCacheConformance.numberedEvents(1...6)
        try await cache.append(Array(events[0..<2]))
        try damagePageWhileOpen(rootPage(of: "events_id", at: url), of: url)
        try await cache.append(Array(events[2..<4]))
        try damagePageWhileOpen(rootPage(of: "events_id", at: url), of: url)
        try await cache.append(Array(events[4...]))

        #expect(cache.recoveredCorruptions == 2)
        #expect(logger.entries.count == 2)
        #expect(logger.entries.last?.message.contains("moved it to \(url.path).corrupt.1 and") == true)
        #expect(FileManager.default.fileExists(atPath: url.path + ".corrupt"))
        #expect(FileManager.default.fileExists(atPath: url.path + ".corrupt.1"))
        #expect(try await cache.peek(limit: 10) == events)
    }

    // MARK: Helpers

    /// Sends `names` through a client on `cache`, flushes, and returns everything delivered.
    private func deliverThroughAClient(_ cache: SQLiteEventCache, sending names: [String]) async throws -> [Event] {
        let spy = SpyEventTransmitter()
        let client = TelemetryClient(
            configuration: TelemetryClient.Configuration(appID: "RECOVERY"),
            destinations: [Destination(id: "main", transmitter: spy, cache: cache)],
            storage: InMemoryProcessorStorage(),
            logger: RecordingLogger()
        )
        await client.start()
        for name in names { await client.send(name) }
        let result = await client.flush()
        #expect(result == .complete)
        await client.shutdown()
        return spy.deliveredEvents
    }
}

/// The first page of a table or index (`sqlite_master.rootpage`).
func rootPage(of name: String, at url: URL) throws -> Int {
    Int(try queryInt(at: url, "SELECT rootpage FROM sqlite_master WHERE name = '\(name)'"))
}

/// Overwrites one page of a closed database with garbage.
func damagePage(_ page: Int, of url: URL) throws {
    let pageSize = Int(try queryInt(at: url, "PRAGMA page_size"))
    try overwrite(url, at: (page - 1) * pageSize, with: deterministicBytes(count: pageSize, seed: UInt64(page)))
}

/// Overwrites one page while a cache has the file open. The WAL is checkpointed into the file
/// first (a newer copy of the page there would hide the damage); the checkpoint also resets
/// the WAL, so the cache's connection reads its pages again from the file.
func damagePageWhileOpen(_ page: Int, of url: URL) throws {
    try checkpoint(url)
    try damagePage(page, of: url)
}

/// Copies the WAL into the database file and empties it, through a second connection.
func checkpoint(_ url: URL) throws {
    try executeSQL(at: url, "PRAGMA wal_checkpoint(TRUNCATE);")
}

func overwrite(_ url: URL, at offset: Int, with bytes: [UInt8]) throws {
    let handle = try FileHandle(forUpdating: url)
    defer { try? handle.close() }
    try handle.seek(toOffset: UInt64(offset))
    try handle.write(contentsOf: Data(bytes))
    try handle.synchronize()
}
