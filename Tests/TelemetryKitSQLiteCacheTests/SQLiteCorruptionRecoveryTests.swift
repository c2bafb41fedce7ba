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
        let fixture = try DamagedCacheFixture()
        defer { fixture.remove() }
        let events = EventCacheConformance.numberedEvents(1...30)
        try await fixture.fillAndClose(with: events)
        try damagePage(rootPage(of: object, at: fixture.url), of: fixture.url)
        let damaged = try Data(contentsOf: fixture.url)

        let cache = try fixture.open()

        fixture.expectRecoveries(1, of: cache, saying: ["at \(fixture.url.path) was damaged", "kept its 30 event(s)"])
        #expect(try Data(contentsOf: fixture.directory.file("events.sqlite.corrupt")) == damaged)
        // The table itself was intact: nothing is lost, and new events queue behind.
        #expect(await cache.count() == 30)
        let delivered = try await deliverThroughAClient(cache, sending: ["After.1", "After.2", "After.3"])
        #expect(delivered.map(\.type) == events.map(\.type) + ["After.1", "After.2", "After.3"])
        #expect(delivered.prefix(30).map(\.id) == events.map(\.id))
        #expect(await cache.count() == 0)
        #expect(fixture.logger.entries.count == 1)

        let reopened = try fixture.open()
        #expect(reopened.recoveredCorruptions == 0)
        #expect(fixture.logger.entries.count == 1)
    }

    /// Opening reads no page beyond the schema (its cost does not grow with the queue); the
    /// check of every page is the cache's first job, so the appends made right after opening
    /// already go to the recovered database, behind the events saved from the damaged one.
    @Test(arguments: ["events_id", "sqlite_sequence", "contexts"])
    func appendsRightAfterOpeningADamagedFileLandBehindTheSavedEvents(_ object: String) async throws {
        let fixture = try DamagedCacheFixture()
        defer { fixture.remove() }
        let events = EventCacheConformance.numberedEvents(1...30)
        try await fixture.fillAndClose(with: events)
        try damagePage(rootPage(of: object, at: fixture.url), of: fixture.url)

        let cache = try fixture.open()
        let later = EventCacheConformance.numberedEvents(31...33)
        try await cache.append(later)

        let expected = object == "contexts" ? later : events + later
        #expect(try await cache.peek(limit: 100) == expected)
        #expect(await cache.count() == expected.count)
        fixture.expectRecoveries(1, of: cache, saying: ["at \(fixture.url.path) was damaged"])
        let reopened = try fixture.open()
        #expect(try await reopened.peek(limit: 100) == expected)
        #expect(reopened.recoveredCorruptions == 0)
    }

    @Test func anAppendThatMeetsADamagedIndexLandsInTheFreshDatabase() async throws {
        let fixture = try DamagedCacheFixture()
        defer { fixture.remove() }
        let cache = try fixture.open()
        let events = EventCacheConformance.numberedEvents(1...13)
        try await cache.append(Array(events[0..<10]))
        try fixture.damageWhileOpen("events_id")

        try await cache.append(Array(events[10...]))

        fixture.expectRecoveries(1, of: cache, saying: ["at \(fixture.url.path) was damaged"])
        #expect(await cache.count() == 13)
        #expect(try await cache.peek(limit: 100) == events)
        try await cache.remove(ids: events[0..<5].map(\.id))
        #expect(try await cache.peek(limit: 100) == Array(events[5...]))
        #expect(await cache.count() == 8)
        #expect(cache.recoveredCorruptions == 1)

        let reopened = try fixture.open()
        #expect(try await reopened.peek(limit: 100) == Array(events[5...]))
        #expect(fixture.logger.entries.count == 1)
    }

    /// An earlier version's intake journals found beside a damaged file: the opening check
    /// replaces the file, and the import appends every journaled event to the fresh one,
    /// after the salvaged events.
    @Test func journalsImportedIntoADamagedFileLandInTheFreshDatabase() async throws {
        let fixture = try DamagedCacheFixture()
        defer { fixture.remove() }
        let events = EventCacheConformance.numberedEvents(1...15)
        try await fixture.fillAndClose(with: Array(events[0..<10]))
        try damagePage(rootPage(of: "events_id", at: fixture.url), of: fixture.url)
        try writeLegacyJournal(Array(events[10..<13]), to: fixture.directory.file("events.sqlite-intake-1"))
        try writeLegacyJournal(Array(events[13...]), to: fixture.directory.file("events.sqlite-intake-2"))

        let cache = try fixture.open()
        let queued = try await cache.peek(limit: 100)

        #expect(queued == events)  // journals in the order of their names
        #expect(cache.recoveredCorruptions == 1)
        #expect(fixture.logger.warnings.count == 1)
        #expect(fixture.logger.messages(at: .info).contains { $0.contains("Appended 5 event(s)") })
        #expect(journalFiles(in: fixture.directory).isEmpty)
    }

    /// Before recovery, this removal failed on every attempt: the batch was sent again and
    /// again and `flush()` never emptied the queue.
    @Test func aRemovalThatMeetsADamagedIndexStillEmptiesTheQueue() async throws {
        let fixture = try DamagedCacheFixture()
        defer { fixture.remove() }
        let cache = try fixture.open()
        let (client, spy) = await startedClient(on: cache, logger: fixture.logger)
        for number in 1...12 { await client.send("Queued.\(number)") }
        #expect(await cache.count() == 12)
        try fixture.damageWhileOpen("events_id")

        #expect(await client.flush() == .complete)

        #expect(spy.deliveredEvents.map(\.type) == (1...12).map { "Queued.\($0)" })
        #expect(spy.batches.count == 1)
        #expect(await cache.count() == 0)
        fixture.expectRecoveries(1, of: cache)
        await client.send("Later")
        #expect(await client.flush() == .complete)
        #expect(spy.deliveredEvents.last?.type == "Later")
        await client.shutdown()
        #expect(fixture.logger.entries.count == 1)
    }

    @Test func removeAllThatMeetsADamagedIndexEmptiesTheFreshDatabase() async throws {
        let fixture = try DamagedCacheFixture()
        defer { fixture.remove() }
        let cache = try fixture.open()
        try await cache.append(EventCacheConformance.numberedEvents(1...10))
        try fixture.damageWhileOpen("events_id")

        try await cache.removeAll()

        #expect(await cache.count() == 0)
        #expect(try await cache.peek(limit: 10) == [])
        fixture.expectRecoveries(1, of: cache)
        let later = EventCacheConformance.numberedEvents(11...12)
        try await cache.append(later)
        #expect(try await cache.peek(limit: 10) == later)
    }

    /// A damaged table page: its rows cannot be read back, but the cache goes on working.
    @Test func aPeekThatMeetsADamagedTableReturnsWhatIsLeftAndTheCacheGoesOn() async throws {
        let fixture = try DamagedCacheFixture()
        defer { fixture.remove() }
        let cache = try fixture.open()
        try await cache.append(EventCacheConformance.numberedEvents(1...10))
        try fixture.damageWhileOpen("events")

        #expect(try await cache.peek(limit: 10) == [])

        fixture.expectRecoveries(1, of: cache, saying: ["none of its events could be read"])
        #expect(await cache.count() == 0)
        let later = EventCacheConformance.numberedEvents(11...13)
        try await cache.append(later)
        #expect(try await cache.peek(limit: 10) == later)
    }

    /// SQLITE_NOTADB: the header is garbage, so no page of the file can be read.
    @Test func aGarbageHeaderFoundAtOpeningIsMovedAsideWithoutReplacingAnOlderCopy() async throws {
        let fixture = try DamagedCacheFixture()
        defer { fixture.remove() }
        try await fixture.fillAndClose(with: EventCacheConformance.numberedEvents(1...5))
        let olderCopy = Data("an older damaged copy".utf8)
        try olderCopy.write(to: fixture.directory.file("events.sqlite.corrupt"))
        try overwrite(fixture.url, at: 0, with: deterministicBytes(count: 100, seed: 7))
        let damaged = try Data(contentsOf: fixture.url)

        let cache = try fixture.open()

        fixture.expectRecoveries(
            1,
            of: cache,
            movedTo: ".corrupt.1",
            saying: ["file is not a database", "none of its events could be read"]
        )
        #expect(await cache.count() == 0)
        #expect(try Data(contentsOf: fixture.directory.file("events.sqlite.corrupt")) == olderCopy)
        #expect(try Data(contentsOf: fixture.directory.file("events.sqlite.corrupt.1")) == damaged)
        let later = EventCacheConformance.numberedEvents(6...8)
        try await cache.append(later)
        #expect(try await cache.peek(limit: 10) == later)
    }

    @Test func aGarbageHeaderFoundByAnAppendKeepsTheAppendedEvents() async throws {
        let fixture = try DamagedCacheFixture()
        defer { fixture.remove() }
        let cache = try fixture.open()
        try await cache.append(EventCacheConformance.numberedEvents(1...5))
        try checkpoint(fixture.url)
        try overwrite(fixture.url, at: 0, with: deterministicBytes(count: 100, seed: 7))

        let later = EventCacheConformance.numberedEvents(6...8)
        try await cache.append(later)

        fixture.expectRecoveries(1, of: cache, saying: ["file is not a database"])
        #expect(try await cache.peek(limit: 10) == later)
        #expect(await cache.count() == 3)
        try await cache.remove(ids: [later[0].id])
        #expect(try await cache.peek(limit: 10) == Array(later[1...]))
    }

    @Test func damageTwiceKeepsBothCopiesAndCountsTwice() async throws {
        let fixture = try DamagedCacheFixture()
        defer { fixture.remove() }
        let cache = try fixture.open()
        let events = EventCacheConformance.numberedEvents(1...6)
        try await cache.append(Array(events[0..<2]))
        try fixture.damageWhileOpen("events_id")
        try await cache.append(Array(events[2..<4]))
        try fixture.damageWhileOpen("events_id")
        try await cache.append(Array(events[4...]))

        fixture.expectRecoveries(2, of: cache, movedTo: ".corrupt.1")
        #expect(FileManager.default.fileExists(atPath: fixture.url.path + ".corrupt"))
        #expect(try await cache.peek(limit: 10) == events)
    }

    // MARK: Helpers

    /// A started client with one destination on `cache`, delivering to the returned spy.
    private func startedClient(
        on cache: SQLiteEventCache,
        logger: RecordingLogger
    ) async -> (TelemetryClient, SpyEventTransmitter) {
        let spy = SpyEventTransmitter()
        // Nothing is sent before the test's `flush()`, however slow a loaded machine runs it
        // (the default policy sends every 10 s).
        var policy = DeliveryPolicy.default
        policy.flushInterval = 3_600
        let client = TelemetryClient(
            configuration: TelemetryClient.Configuration(appID: "RECOVERY"),
            destinations: [Destination(id: "main", transmitter: spy, cache: cache, policy: policy)],
            storage: InMemoryProcessorStorage(),
            logger: logger
        )
        await client.start()
        return (client, spy)
    }

    /// Sends `names` through a client on `cache`, flushes, and returns everything delivered.
    private func deliverThroughAClient(_ cache: SQLiteEventCache, sending names: [String]) async throws -> [Event] {
        let (client, spy) = await startedClient(on: cache, logger: RecordingLogger())
        for name in names { await client.send(name) }
        let result = await client.flush()
        #expect(result == .complete)
        await client.shutdown()
        return spy.deliveredEvents
    }
}

/// A cache file in a fresh temporary directory, and the logger the tests' caches on it
/// report to: the setup and the recovery checks every damage test shares.
private struct DamagedCacheFixture {
    let directory: TemporaryDirectory
    let url: URL
    let logger = RecordingLogger()

    init() throws {
        directory = try TemporaryDirectory()
        url = directory.file("events.sqlite")
    }

    /// A cache on the file, reporting to `logger`.
    func open() throws -> SQLiteEventCache {
        try SQLiteEventCache(fileURL: url, logger: logger)
    }

    /// Writes `events` through a cache that is closed again when this returns, with its log
    /// gone: the last connection copies the log into the file and deletes it when it closes,
    /// which would undo damage done to the file before that.
    func fillAndClose(with events: [Event]) async throws {
        do {
            let cache = try SQLiteEventCache(fileURL: url)
            try await cache.append(events)
        }
        for _ in 0..<250 where FileManager.default.fileExists(atPath: url.path + "-wal") {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"), "the closed cache's log is still there")
    }

    /// Garbles the first page of the table or index `object` while a cache has the file open.
    func damageWhileOpen(_ object: String) throws {
        try damagePageWhileOpen(rootPage(of: object, at: url), of: url)
    }

    /// Checks that `cache` recovered `count` times, that each recovery logged exactly one
    /// warning, that the last one names where the damaged file went (`url` + `suffix`, which
    /// exists) and says each of `details`.
    func expectRecoveries(
        _ count: Int,
        of cache: SQLiteEventCache,
        movedTo suffix: String = ".corrupt",
        saying details: [String] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(cache.recoveredCorruptions == count, sourceLocation: sourceLocation)
        #expect(logger.entries.count == count, sourceLocation: sourceLocation)
        let message = logger.entries.last?.message ?? ""
        #expect(message.contains("moved it to \(url.path)\(suffix) and"), sourceLocation: sourceLocation)
        #expect(FileManager.default.fileExists(atPath: url.path + suffix), sourceLocation: sourceLocation)
        for detail in details {
            #expect(message.contains(detail), "\(message)", sourceLocation: sourceLocation)
        }
    }

    func remove() {
        directory.remove()
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
/// first (a newer copy of the page there would hide the damage); see ``checkpoint(_:)`` for
/// how the cache's connection learns to read its pages again from the file.
func damagePageWhileOpen(_ page: Int, of url: URL) throws {
    try checkpoint(url)
    try damagePage(page, of: url)
}

/// Copies the WAL into the database file and empties it, through a second connection.
///
/// A commit comes first, so that the cache's connection sees the file changed and reads its
/// pages again from it. The checkpoint alone would not always tell it: when the cache's own
/// checkpoint (half a second after its last write, sooner than a loaded machine may run the
/// test's next line) has emptied the WAL already, this one changes nothing the connection
/// looks at, and it goes on reading its cached, undamaged pages.
func checkpoint(_ url: URL) throws {
    try executeSQL(
        at: url,
        "CREATE TABLE damage_marker (x); DROP TABLE damage_marker; PRAGMA wal_checkpoint(TRUNCATE);"
    )
}

func overwrite(_ url: URL, at offset: Int, with bytes: [UInt8]) throws {
    let handle = try FileHandle(forUpdating: url)
    defer { try? handle.close() }
    try handle.seek(toOffset: UInt64(offset))
    try handle.write(contentsOf: Data(bytes))
    try handle.synchronize()
}
