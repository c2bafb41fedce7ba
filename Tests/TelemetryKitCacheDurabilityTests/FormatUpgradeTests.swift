import Foundation
import TelemetryKit
import TelemetryKitJSONLinesCache
import TelemetryKitSQLiteCache
import TelemetryKitTesting
import Testing

#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

/// The events queued in the fixtures of the first on-disk formats (Fixtures/): a SQLite
/// database (`format-1.sqlite`, one table of events with their whole JSON) and a JSON-lines
/// journal (`format-1.jsonl`), both written by the caches as they were before the formats
/// changed. An app that updates must find its queue where it left it.
enum FormatFixtures {
    /// The processors' metadata, shared by every event (as the finalizer hands it over).
    static let metadata: [String: PayloadValue] = [
        "TelemetryDeck.AppInfo.version": .string("1.4.0"),
        "TelemetryDeck.AppInfo.buildNumber": .string("42"),
        "TelemetryDeck.Device.platform": .string("Linux"),
        "TelemetryDeck.Device.operatingSystem": .string("Linux"),
        "TelemetryDeck.Device.timeZone": .string("UTC+1"),
        "TelemetryDeck.RunContext.isDebug": .bool(false),
        "TelemetryDeck.Retention.totalSessionsCount": .int(12),
        "TelemetryDeck.Retention.averageSessionSeconds": .double(93.5),
        "TelemetryDeck.UserPreference.language": .string("de"),
        "TelemetryDeck.SDK.name": .string("TelemetryKit"),
    ]

    static let clientUser = "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8"
    static let sessionID = "8A1F0D3C-2B4E-4C6A-9E7F-0123456789AB"

    /// The five events written to both fixtures, oldest first.
    static let written: [Event] = [
        event(1, "App.launched", own: [:]),
        event(2, "Checkout.completed", own: ["items": .int(3), "total": .double(19.99)], floatValue: 19.99),
        event(
            3,
            "Screen.shown",
            own: ["screen": .string("home \"main\"\n"), "TelemetryDeck.Device.platform": .string("override")]
        ),
        event(4, "Test.ping", own: ["flag": .bool(true)], sessionID: nil, isTestMode: true),
        event(5, "Settings.changed", own: ["key": .string("theme"), "value": .string("dark ☾")]),
    ]

    /// What each fixture still holds: the journal's third event was acknowledged (removed)
    /// before the fixture was kept, so its journal has an acknowledgement line too.
    static let queuedInDatabase = written
    static let queuedInJournal = written.filter { $0.id != written[2].id }

    static func event(
        _ number: Int,
        _ type: String,
        own: [String: PayloadValue],
        floatValue: Double? = nil,
        sessionID: String? = FormatFixtures.sessionID,
        isTestMode: Bool = false
    ) -> Event {
        Event(
            id: UUID(uuidString: "00000000-0000-4000-8000-0000000000\(String(format: "%02d", number))")!,
            appID: "FIXTURE-APP",
            type: type,
            clientUser: clientUser,
            sessionID: sessionID,
            receivedAt: Date(timeIntervalSince1970: 1_764_000_000 + Double(number) * 1.25),
            sharedPayload: metadata,
            ownPayload: own,
            floatValue: floatValue,
            isTestMode: isTestMode
        )
    }

    /// A fresh copy of a fixture in `directory` (the fixture itself stays untouched).
    static func copy(_ name: String, into directory: TemporaryDirectory, as fileName: String) throws -> URL {
        let source = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures"))
        let target = directory.file(fileName)
        try FileManager.default.copyItem(at: source, to: target)
        return target
    }
}

/// A queue written in an earlier format is read after an update, in order, and the cache
/// goes on working with it.
struct FormatUpgradeTests {
    @Test func aDatabaseOfTheFirstFormatIsReadWithItsEvents() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = try FormatFixtures.copy("format-1.sqlite", into: directory, as: "events.sqlite")
        let logger = RecordingLogger()
        let cache = try SQLiteEventCache(fileURL: url, logger: logger)

        #expect(await cache.count() == 5)
        let queued = try await cache.peek(limit: 100)
        #expect(queued == FormatFixtures.queuedInDatabase)
        #expect(queued.map(\.id) == FormatFixtures.queuedInDatabase.map(\.id))
        #expect(cache.recoveredCorruptions == 0)
        #expect(logger.entries.isEmpty)
        // Converted in place: the metadata the five events share is stored once (events 3
        // and 4 have contexts of their own: a shadowed metadata key, no session and test mode).
        #expect(try Self.query(url, "PRAGMA user_version") == "2")
        #expect(try Self.query(url, "SELECT COUNT(*) FROM contexts") == "3")
        #expect(try Self.query(url, "SELECT COUNT(*) FROM events WHERE length(json) < 200") == "5")

        let next = FormatFixtures.event(6, "After.update", own: ["n": .int(6)])
        try await cache.append([next])
        try await cache.remove(ids: queued.prefix(2).map(\.id))
        #expect(try await cache.peek(limit: 100) == Array(FormatFixtures.queuedInDatabase.dropFirst(2)) + [next])
    }

    @Test func aJournalOfTheFirstFormatIsReadWithItsEvents() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = try FormatFixtures.copy("format-1.jsonl", into: directory, as: "events.jsonl")
        let logger = RecordingLogger()
        let cache = try JSONLinesEventCache(fileURL: url, logger: logger)

        #expect(await cache.count() == 4)
        let queued = try await cache.peek(limit: 100)
        #expect(queued == FormatFixtures.queuedInJournal)
        #expect(logger.entries.isEmpty)

        let next = FormatFixtures.event(6, "After.update", own: ["n": .int(6)])
        try await cache.append([next])
        try await cache.remove(ids: queued.prefix(2).map(\.id))
        #expect(try await cache.peek(limit: 100) == Array(FormatFixtures.queuedInJournal.dropFirst(2)) + [next])
    }

    /// What the previous version left when it was killed between journaling four awaited
    /// events and committing the last two (as iOS ends an app it updates): its database with
    /// the first two, and its intake journal with all four. Written by that version itself
    /// (Fixtures/journal-1.*). The first opening after the update appends the two missing
    /// events once, in order, and deletes the journal.
    @Test func anIntakeJournalLeftByThePreviousVersionIsImportedOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = try FormatFixtures.copy("journal-1.sqlite", into: directory, as: "events.sqlite")
        let journal = "events.sqlite-intake-B1FD06D5-647B-4948-8996-6BAB6196FA34"
        let fixture = "journal-1.sqlite" + journal.dropFirst("events.sqlite".count)
        _ = try FormatFixtures.copy(fixture, into: directory, as: journal)
        let logger = RecordingLogger()
        let cache = try SQLiteEventCache(fileURL: url, logger: logger)

        let queued = try await cache.peek(limit: 100)
        #expect(queued.map(\.type) == (1...4).map { "Conformance.\($0)" })
        #expect(queued.map { $0.payload["n"] } == (1...4).map { PayloadValue.int(Int64($0)) })
        #expect(Set(queued.map(\.id)).count == 4)
        #expect(await cache.count() == 4)
        #expect(logger.messages(at: .info).contains { $0.contains("Appended 2 event(s)") })
        #expect(!FileManager.default.fileExists(atPath: directory.file(journal).path))

        let reopened = try SQLiteEventCache(fileURL: directory.file("events.sqlite"), logger: RecordingLogger())
        #expect(await reopened.count() == 4)
    }

    /// The first column of the first row of `sql`, as text, through a connection of its own.
    static func query(_ url: URL, _ sql: String) throws -> String? {
        var handle: OpaquePointer?
        defer { sqlite3_close_v2(handle) }
        guard sqlite3_open_v2(url.path, &handle, SQLITE_OPEN_READONLY, nil) == SQLITE_OK else { return nil }
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, sqlite3_step(statement) == SQLITE_ROW,
            let text = sqlite3_column_text(statement, 0)
        else { return nil }
        return String(cString: text)
    }
}
