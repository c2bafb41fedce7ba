import Foundation
import TelemetryKit
import TelemetryKitSQLiteCache
import TelemetryKitTesting
import Testing

/// How the cache stores events: the metadata many events share once, each event its own part.
struct SQLiteStorageTests {
    /// ~50 metadata entries, as the default processors add them: one dictionary shared by
    /// every event of `session`.
    static let metadata: [String: PayloadValue] = Dictionary(
        uniqueKeysWithValues: (0..<50).map { index in
            (
                "TelemetryDeck.Metadata.key\(index)",
                index % 3 == 0 ? .int(Int64(index)) : .string("a shared metadata value \(index)")
            )
        }
    )

    static func event(_ number: Int, session: Int = 1, metadata: [String: PayloadValue] = metadata) -> Event {
        Event(
            appID: "STORAGE-APP",
            type: "Screen.shown",
            clientUser: "8d969eef6ecad3c29a3a629280e686cf0c3f5d5a86aff3ca12020c923adc6c92",
            sessionID: "00000000-0000-4000-8000-\(String(format: "%012d", session))",
            receivedAt: Date(timeIntervalSince1970: 1_764_000_000 + Double(number) / 1000),
            sharedPayload: metadata,
            ownPayload: ["screen": .string("home"), "count": .int(Int64(number)), "ratio": .double(0.5)]
        )
    }

    @Test func eventsOfOneSessionStoreTheirMetadataOnceAndTheQueueTakesFewBytes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let events = (1...1_000).map { Self.event($0) }
        do {
            let cache = try SQLiteEventCache(fileURL: url, logger: RecordingLogger())
            for start in stride(from: 0, to: events.count, by: 100) {
                try await cache.append(Array(events[start..<(start + 100)]))
            }
            #expect(try queryInt(at: url, "SELECT COUNT(*) FROM contexts") == 1)
            #expect(try await cache.peek(limit: 2_000) == events)
        }
        // Closed: the log is in the file. An event took 2 KB in the first format.
        let bytes = try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int ?? .max
        #expect(bytes / events.count < 200, "\(bytes) bytes for \(events.count) events")

        let reopened = try SQLiteEventCache(fileURL: url, logger: RecordingLogger())
        #expect(try await reopened.peek(limit: 2_000) == events)
    }

    /// While it is open: once appends pause, the log is moved into the database and
    /// truncated, so the files hold little more than the events (125 bytes each here; 2 KB in
    /// the first format).
    @Test func atRestTheLogIsTruncatedAndTenThousandEventsTakeUnder200BytesEach() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let cache = try SQLiteEventCache(fileURL: url, logger: RecordingLogger())
        let events = (1...10_000).map { Self.event($0) }
        for start in stride(from: 0, to: events.count, by: 500) {
            try await cache.append(Array(events[start..<(start + 500)]))
        }
        var logBytes = Self.size(url.path + "-wal")
        for _ in 0..<100 where logBytes > 0 {
            try await Task.sleep(for: .milliseconds(100))
            logBytes = Self.size(url.path + "-wal")
        }

        #expect(logBytes == 0)
        let bytes = Self.size(url.path) + logBytes
        #expect(bytes / events.count < 200, "\(bytes) bytes for \(events.count) events")
        #expect(await cache.count() == 10_000)
        #expect(try await cache.peek(limit: 3) == Array(events.prefix(3)))
    }

    static func size(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    /// Count, bytes and age: whichever limit is reached first evicts the oldest events.
    @Test func theByteLimitEvictsTheOldestAndIsLoggedOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let logger = RecordingLogger()
        let events = EventCacheConformance.numberedEvents(1...30)
        do {
            let cache = try SQLiteEventCache(fileURL: url, maxBytes: 1_000, logger: logger)
            try await cache.append(Array(events[0..<20]))
            try await cache.append(Array(events[20...]))

            let kept = await cache.count()
            // An event of these takes 70-odd bytes: its row's own part and its fixed columns.
            #expect(kept >= 10 && kept <= 14, "\(kept) events kept")
            #expect(await cache.evictedCount() == 30 - kept)
            #expect(try await cache.peek(limit: 100) == Array(events.suffix(kept)))
            #expect(logger.warnings.count == 1)
            #expect(logger.warnings.first?.contains("is full (10000 events or 1000 bytes)") == true)
        }
        // The count limit, when it comes first; and a lower byte limit when opening again.
        let reopened = try SQLiteEventCache(fileURL: url, limit: 5, maxBytes: 1_000, logger: logger)
        #expect(try await reopened.peek(limit: 100) == Array(events.suffix(5)))
        let smaller = try SQLiteEventCache(fileURL: url, maxBytes: 200, logger: logger)
        #expect(try await smaller.peek(limit: 100) == Array(events.suffix(2)))
        #expect(await smaller.evictedCount() == 3)
    }

    /// `.normal` (the default) commits without an fsync, `.full` with one, also after a
    /// removal (which runs at NORMAL for its own commit).
    @Test(arguments: [(SQLiteEventCache.Synchronous.normal, Int64(1)), (.full, 2)])
    func theConnectionRunsAtTheSynchronousSettingAsked(
        _ synchronous: SQLiteEventCache.Synchronous,
        level: Int64
    )
        async throws
    {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try SQLiteEventCache(
            fileURL: directory.file("events.sqlite"),
            synchronous: synchronous,
            logger: RecordingLogger()
        )
        #expect(cache.connectionSynchronousSetting == level)
        let events = EventCacheConformance.numberedEvents(1...3)
        try await cache.append(events)
        try await cache.remove(ids: [events[1].id])
        #expect(cache.connectionSynchronousSetting == level)
        // The file was created without an fsync (it held nothing yet); opened again, no
        // longer new, it runs at the setting asked as well, and holds what was appended.
        let reopened = try SQLiteEventCache(
            fileURL: directory.file("events.sqlite"),
            synchronous: synchronous,
            logger: RecordingLogger()
        )
        #expect(reopened.connectionSynchronousSetting == level)
        #expect(try await reopened.peek(limit: 10) == [events[0], events[2]])
        let defaulted = try SQLiteEventCache(fileURL: directory.file("default.sqlite"), logger: RecordingLogger())
        #expect(defaulted.connectionSynchronousSetting == 1)
    }

    @Test func contextsGoWhenTheQueueEmpties() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let cache = try SQLiteEventCache(fileURL: url, logger: RecordingLogger())
        let first = (1...3).map { Self.event($0, session: 1) }
        let second = (4...6).map { Self.event($0, session: 2) }
        try await cache.append(first + second)
        #expect(try queryInt(at: url, "SELECT COUNT(*) FROM contexts") == 2)

        try await cache.remove(ids: (first + second).map(\.id))

        #expect(try queryInt(at: url, "SELECT COUNT(*) FROM contexts") == 0)
        let later = [Self.event(7, session: 2)]
        try await cache.append(later)
        #expect(try await cache.peek(limit: 10) == later)
        #expect(try queryInt(at: url, "SELECT COUNT(*) FROM contexts") == 1)
    }

    /// An app offline for many sessions never empties its queue: contexts no event refers to
    /// any more are dropped as new ones come, and every event keeps its own.
    @Test func contextsNoEventRefersToAreDroppedWhileTheQueueNeverEmpties() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let cache = try SQLiteEventCache(fileURL: url, logger: RecordingLogger())
        var kept: [Event] = []
        for session in 1...100 {
            let events = [Self.event(session * 2, session: session), Self.event(session * 2 + 1, session: session)]
            try await cache.append(events)
            // The oldest event of each session stays a while; the rest is delivered.
            kept.append(events[0])
            let delivered = [events[1]] + (kept.count > 5 ? [kept.removeFirst()] : [])
            try await cache.remove(ids: delivered.map(\.id))
        }

        #expect(try await cache.peek(limit: 1_000) == kept)
        let contexts = try queryInt(at: url, "SELECT COUNT(*) FROM contexts")
        #expect(contexts >= 5 && contexts <= 40, "\(contexts) contexts for 5 queued sessions")
        let reopened = try SQLiteEventCache(fileURL: url, logger: RecordingLogger())
        #expect(try await reopened.peek(limit: 1_000) == kept)
    }

    /// Different metadata, a shadowed metadata key, no session, test mode: each comes back as
    /// it was, next to events of the shared context. An event whose own entry shadows a
    /// metadata key still refers to the shared context (its entry, stored above it, wins when
    /// read back); one that had a metadata key removed stores every entry.
    @Test func eventsOfDifferentContextsComeBackAsTheyWere() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let cache = try SQLiteEventCache(fileURL: url, logger: RecordingLogger())
        var shadowing = Self.event(3)
        shadowing.setPayloadValue(.string("own value"), forKey: "TelemetryDeck.Metadata.key1")
        var removing = Self.event(4)
        removing.setPayloadValue(nil, forKey: "TelemetryDeck.Metadata.key2")
        var testMode = Self.event(5, metadata: ["other": .bool(true)])
        testMode.isTestMode = "true"
        testMode.sessionID = nil
        testMode.floatValue = 2.5
        var ownShadowing = Self.event(7)
        ownShadowing.ownPayload["TelemetryDeck.Metadata.key3"] = .string("own parameter")
        let events = [
            Self.event(1), Self.event(2, session: 2), shadowing, removing, testMode, Self.event(6), ownShadowing,
        ]

        try await cache.append(events)

        let read = try await cache.peek(limit: 10)
        #expect(read == events)
        #expect(read[2].payloadValue(forKey: "TelemetryDeck.Metadata.key1") == .string("own value"))
        #expect(read[3].payloadValue(forKey: "TelemetryDeck.Metadata.key2") == nil)
        #expect(read[3].payloadCount == 52)
        #expect((read[4].isTestMode == "true") && read[4].sessionID == nil && read[4].floatValue == 2.5)
        #expect(read[6].payloadValue(forKey: "TelemetryDeck.Metadata.key3") == .string("own parameter"))
        #expect(read[6].payloadCount == 53)
        // Rows 1, 3, 6 and 7 (the shadowing ones among them) share one context; row 4 has its own.
        #expect(try queryInt(at: url, "SELECT COUNT(DISTINCT context) FROM events WHERE seq IN (1, 3, 6, 7)") == 1)
        #expect(
            try queryInt(
                at: url,
                "SELECT COUNT(*) FROM events WHERE seq = 4 AND context = (SELECT context FROM events WHERE seq = 1)"
            ) == 0
        )
    }

    /// One append of 75 events is two multi-row inserts of 32 and 11 single ones: order, ids,
    /// contexts that change inside a chunk (three sessions, a shadowed key, test data) and
    /// per-event values all come back as appended, also after reopening.
    @Test func aLargeAppendIsStoredInChunksAndComesBackAsAppended() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        var events = (0..<75).map { Self.event($0, session: 1 + $0 % 3) }
        events[10].setPayloadValue(.string("own value"), forKey: "TelemetryDeck.Metadata.key1")
        events[40].isTestMode = "true"
        events[40].floatValue = 1.25
        events[70].setPayloadValue(nil, forKey: "TelemetryDeck.Metadata.key2")
        do {
            let cache = try SQLiteEventCache(fileURL: url, logger: RecordingLogger())
            try await cache.append(events)
            #expect(await cache.count() == 75)
            #expect(try await cache.peek(limit: 100) == events)
            // Three sessions, test data in session 2, and session 2 without a shared layer
            // (event 70 removes a shared key, so it stores every entry; event 10's shadowing
            // entry is stored above its session's shared layer).
            #expect(try queryInt(at: url, "SELECT COUNT(*) FROM contexts") == 5)
        }
        let reopened = try SQLiteEventCache(fileURL: url, logger: RecordingLogger())
        let read = try await reopened.peek(limit: 100)
        #expect(read.map(\.id) == events.map(\.id))
        #expect(read == events)
        #expect(read[10].payloadValue(forKey: "TelemetryDeck.Metadata.key1") == .string("own value"))
        #expect((read[40].isTestMode == "true") && read[40].floatValue == 1.25)
        #expect(read[70].payloadValue(forKey: "TelemetryDeck.Metadata.key2") == nil)
        try await reopened.remove(ids: events.prefix(40).map(\.id))
        #expect(try await reopened.peek(limit: 100) == Array(events.dropFirst(40)))
    }

    /// The inserts run `OR FAIL` (no statement journal): a row refused halfway through a
    /// chunk must still leave none of its append behind, as the transaction rolls back.
    @Test func anAppendRefusedHalfwayStoresNoneOfItsEvents() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let events = (0..<80).map { Self.event($0) }
        do {
            let cache = try SQLiteEventCache(fileURL: url, logger: RecordingLogger())
            try await cache.append(Array(events.prefix(5)))
        }
        // Refuse the 41st row: the 36th of the next append, in its second chunk of 32.
        try executeSQL(
            at: url,
            """
            CREATE TRIGGER refuse_the_41st BEFORE INSERT ON events
            WHEN (SELECT COUNT(*) FROM events) >= 40 BEGIN SELECT RAISE(FAIL, 'refused'); END;
            """
        )
        let cache = try SQLiteEventCache(fileURL: url, logger: RecordingLogger())
        await #expect(throws: (any Error).self) { try await cache.append(Array(events[5..<80])) }
        #expect(try queryInt(at: url, "SELECT COUNT(*) FROM events") == 5)
        #expect(try await cache.peek(limit: 100) == Array(events.prefix(5)))
        try executeSQL(at: url, "DROP TRIGGER refuse_the_41st")
        try await cache.append(Array(events[5..<80]))
        #expect(try await cache.peek(limit: 100) == events)
    }
}
