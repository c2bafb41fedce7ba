import Foundation
import TelemetryKitDefaults
import TelemetryKitTesting
import Testing

/// Fixtures in the formats TelemetryDeck's SDKs wrote, imported into a client that has not
/// started yet (as `Telemetry.initialize` does).
@Suite("TelemetryDeckImporter")
struct TelemetryDeckImporterTests {
    typealias SessionKeys = SessionTrackingProcessor.Keys

    /// v3's `recentSessions`: `JSONEncoder`'s default dates, seconds since 2001-01-01
    /// (2023-12-30T10:00:00Z for 120 s, 2023-12-31T09:00:00Z for 60 s).
    static let version3Sessions = #"[{"st":725623200,"dn":120},{"st":725706000,"dn":60}]"#
    /// The same sessions as v2 wrote them: whole seconds since 1970.
    static let version2Sessions = #"[{"st":1703930400,"dn":120},{"st":1704013200,"dn":60}]"#

    /// A storage as TelemetryDeck SDK v3 left it.
    static func version3Storage() async -> InMemoryProcessorStorage {
        let storage = InMemoryProcessorStorage()
        await storage.set("legacy-user", forKey: "defaultUserIdentifier")
        await storage.set("8A6C1C0E-1B8E-4B6B-9C4F-6F3B2E0D1A55", forKey: "installID")
        await storage.set("2023-06-01", forKey: "firstSessionDate")
        await storage.set(Data(version3Sessions.utf8), forKey: "recentSessions")
        await storage.set(5, forKey: "deletedSessionsCount")
        await storage.set(Data(#"["2023-12-31","2023-06-01","2023-12-30"]"#.utf8), forKey: "distinctDaysUsed")
        return storage
    }

    /// A client with the two processors whose state is imported, not started.
    static func unstartedClient(storage: any ProcessorStorage = InMemoryProcessorStorage()) async -> TestHarness {
        await TestHarness.make(
            salt: "pepper",
            processors: [UserIdentifierProcessor(), SessionTrackingProcessor(timeZoneOffset: 0)],
            storage: storage,
            start: false
        )
    }

    // MARK: Identity and history

    @Test func aVersion3UserKeepsIdentityAndRetentionAndIsNoNewInstall() async throws {
        let harness = await Self.unstartedClient()
        let importer = TelemetryDeckImporter(storage: await Self.version3Storage(), eventFiles: [])

        let report = await importer.run(into: harness.client)

        #expect(
            report
                == .init(
                    state: .imported,
                    events: .nothingFound,
                    adoptedUserIdentifier: true,
                    adoptedSessionHistory: true
                )
        )
        await harness.client.start()
        harness.client.event("App.opened")
        await harness.client.flush()
        let events = harness.spy.deliveredEvents
        #expect(events.map(\.type) == [SessionKeys.sessionStartedEvent, "App.opened"])
        let opened = try #require(events.last)
        #expect(opened.clientUser == EventFinalizer(appID: "TEST-APP", salt: "pepper").clientUser(for: "legacy-user"))
        #expect(opened.payload[SessionKeys.isNewInstall] == nil)
        #expect(opened.payload[SessionKeys.totalSessionsCount] == .int(8))
        #expect(opened.payload[SessionKeys.previousSessionSeconds] == .int(60))
        #expect(opened.payload[SessionKeys.averageSessionSeconds] == .int(90))
        #expect(opened.payload[SessionKeys.distinctDaysUsed] == .int(4))
        #expect(opened.payload[SessionKeys.firstSessionDate] == .string("2023-06-01"))
        #expect(harness.logger.warnings.isEmpty)
        await harness.client.shutdown()
        #expect(try await StoredSessions.starts(in: harness.storage).prefix(2) == [1_703_930_400, 1_704_013_200])
    }

    @Test func version2DataIsReadWithItsOwnDatesAndStringArray() async throws {
        let source = InMemoryProcessorStorage()
        await source.set("2023-06-01", forKey: "firstSessionDate")
        await source.set(Data(Self.version2Sessions.utf8), forKey: "recentSessions")
        await source.set(5, forKey: "deletedSessionsCount")
        await source.set(["2023-06-01", "2023-12-30", "2023-12-31"], forKey: "distinctDaysUsed")
        let harness = await Self.unstartedClient()

        let report = await TelemetryDeckImporter(storage: source, eventFiles: []).run(into: harness.client)

        #expect(report.state == .imported)
        #expect(report.adoptedSessionHistory)
        #expect(!report.adoptedUserIdentifier)  // v2 kept no user id on this key
        await harness.client.start()
        harness.client.event("App.opened")
        await harness.client.flush()
        let opened = try #require(harness.spy.deliveredEvents.last)
        #expect(harness.spy.deliveredEvents.map(\.type) == [SessionKeys.sessionStartedEvent, "App.opened"])
        #expect(opened.payload[SessionKeys.totalSessionsCount] == .int(8))
        #expect(opened.payload[SessionKeys.previousSessionSeconds] == .int(60))
        #expect(opened.payload[SessionKeys.distinctDaysUsed] == .int(4))
        await harness.client.shutdown()
        // The same instants as v3's fixture, although the numbers differ (1970 vs 2001 epoch).
        #expect(try await StoredSessions.starts(in: harness.storage).prefix(2) == [1_703_930_400, 1_704_013_200])
    }

    @Test(arguments: [
        ("data", #"["2023-12-30","2023-12-31"]"#),
        ("string", #"["2023-12-30","2023-12-31"]"#),
    ])
    func version3DaysAsDataOrAsString(form: String, json: String) async throws {
        let source = InMemoryProcessorStorage()
        await source.set("ID", forKey: "installID")
        if form == "data" {
            await source.set(Data(json.utf8), forKey: "distinctDaysUsed")
        } else {
            await source.set(json, forKey: "distinctDaysUsed")
        }
        let harness = await Self.unstartedClient()

        await TelemetryDeckImporter(storage: source, eventFiles: []).run(into: harness.client)

        await harness.client.start()
        harness.client.event("App.opened")
        await harness.client.flush()
        // The two imported days and today.
        #expect(harness.spy.deliveredEvents.last?.payload[SessionKeys.distinctDaysUsed] == .int(3))
        await harness.client.shutdown()
    }

    @Test func anEmptyStorageIsAFreshInstall() async throws {
        let harness = await Self.unstartedClient()

        let report = await TelemetryDeckImporter(storage: InMemoryProcessorStorage(), eventFiles: [])
            .run(into: harness.client)

        #expect(report == .init(state: .nothingFound, events: .nothingFound))
        await harness.client.start()
        await harness.client.flush()
        #expect(
            harness.spy.deliveredEvents.map(\.type) == [
                SessionKeys.newInstallDetectedEvent, SessionKeys.sessionStartedEvent,
            ]
        )
        await harness.client.shutdown()
    }

    @Test func anInstallIDAloneMeansAKnownInstall() async throws {
        let source = InMemoryProcessorStorage()
        await source.set("ID", forKey: "installID")
        let harness = await Self.unstartedClient()

        let report = await TelemetryDeckImporter(storage: source, eventFiles: []).run(into: harness.client)

        #expect(report.state == .imported)
        await harness.client.start()
        await harness.client.flush()
        #expect(harness.spy.deliveredEvents.map(\.type) == [SessionKeys.sessionStartedEvent])
        await harness.client.shutdown()
    }

    @Test func damagedValuesAreSkippedWithWarningsAndTheRestIsAdopted() async throws {
        let source = InMemoryProcessorStorage()
        await source.set("legacy-user", forKey: "defaultUserIdentifier")
        await source.set("ID", forKey: "installID")
        await source.set(Data("{not json".utf8), forKey: "recentSessions")
        await source.set(Data("[1, 2".utf8), forKey: "distinctDaysUsed")
        let harness = await Self.unstartedClient()

        let report = await TelemetryDeckImporter(storage: source, eventFiles: []).run(into: harness.client)

        #expect(report.state == .imported)
        #expect(report.adoptedUserIdentifier)
        #expect(report.adoptedSessionHistory)
        let warnings = harness.logger.warnings
        #expect(warnings.count == 2)
        #expect(
            warnings.contains { $0.hasPrefix("TelemetryDeck import: the stored sessions (9 bytes) are unreadable") }
        )
        #expect(warnings.contains { $0.hasPrefix("TelemetryDeck import: the stored days of use are unreadable") })
        await harness.client.start()
        await harness.client.flush()
        #expect(harness.spy.deliveredEvents.map(\.type) == [SessionKeys.sessionStartedEvent])
        await harness.client.shutdown()
    }

    @Test func unreadableSessionsAmongReadableOnesAreCountedAndSkipped() async throws {
        let source = InMemoryProcessorStorage()
        await source.set("ID", forKey: "installID")
        await source.set(
            Data(#"[{"st":725623200,"dn":120},{"st":"yesterday","dn":5},{"dn":7},{"st":725706000,"dn":60}]"#.utf8),
            forKey: "recentSessions"
        )
        let harness = await Self.unstartedClient()

        await TelemetryDeckImporter(storage: source, eventFiles: []).run(into: harness.client)

        #expect(
            harness.logger.warnings == [
                "TelemetryDeck import: 2 of 4 stored session(s) were unreadable and skipped"
            ]
        )
        await harness.client.start()
        harness.client.event("App.opened")
        await harness.client.flush()
        #expect(harness.spy.deliveredEvents.last?.payload[SessionKeys.totalSessionsCount] == .int(3))
        await harness.client.shutdown()
    }

    @Test func stateOfItsOwnIsKept() async throws {
        let storage = InMemoryProcessorStorage()
        await storage.set("own-id", forKey: UserIdentifierProcessor.Keys.installationIdentifier)
        await storage.set(Data("{}".utf8), forKey: SessionKeys.historyStorageKey)
        let harness = await Self.unstartedClient(storage: storage)

        let report = await TelemetryDeckImporter(storage: await Self.version3Storage(), eventFiles: [])
            .run(into: harness.client)

        #expect(report.state == .imported)
        #expect(!report.adoptedUserIdentifier)
        #expect(!report.adoptedSessionHistory)
        #expect(await storage.string(forKey: UserIdentifierProcessor.Keys.installationIdentifier) == "own-id")
        #expect(await storage.data(forKey: SessionKeys.historyStorageKey) == Data("{}".utf8))
    }

    @Test func theSuiteNameIsTelemetryDecksOwn() {
        // SHA-256("YOUR-APP-ID") = 76ad93e9…a990f3c5f: its last 12 hex digits name the suite.
        #expect(TelemetryDeckImporter.suiteName(appID: "YOUR-APP-ID") == "com.telemetrydeck.d48a990f3c5f")
    }

    // MARK: Once

    @Test func aSecondRunImportsNothingAgain() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file(TelemetryDeckImporter.eventCacheFileName)
        try Data(EventFixtures.version3File.utf8).write(to: file)
        let storage = InMemoryProcessorStorage()
        let source = await Self.version3Storage()

        let first = await Self.unstartedClient(storage: storage)
        let firstReport = await TelemetryDeckImporter(storage: source, eventFiles: [file]).run(into: first.client)
        #expect(firstReport.state == .imported)
        #expect(firstReport.events == .imported)

        // TelemetryDeck's data shows up again (an old app version ran in between).
        try Data(EventFixtures.version3File.utf8).write(to: file)
        await storage.removeValue(forKey: SessionKeys.historyStorageKey)
        let second = await Self.unstartedClient(storage: storage)
        let secondReport = await TelemetryDeckImporter(storage: source, eventFiles: [file]).run(into: second.client)

        #expect(secondReport == .init(state: .alreadyImported, events: .alreadyImported))
        #expect(await second.cache.count() == 0)
        #expect(await storage.data(forKey: SessionKeys.historyStorageKey) == nil)
        #expect(await storage.bool(forKey: TelemetryDeckImporter.Keys.stateImported))
        #expect(await storage.bool(forKey: TelemetryDeckImporter.Keys.eventsImported))
    }

    @Test func theDisabledImporterDoesNothing() async throws {
        let harness = await Self.unstartedClient()

        let report = await TelemetryDeckImporter.disabled.run(into: harness.client)

        #expect(report == .init(state: .skipped, events: .skipped))
        #expect(await harness.storage.bool(forKey: TelemetryDeckImporter.Keys.stateImported) == false)
    }
}

/// The session starts (seconds since 1970) in the session tracker's saved history, read with
/// its documented field names.
enum StoredSessions {
    private struct History: Decodable {
        struct Session: Decodable { var start: Double }
        var sessions: [Session]
    }

    static func starts(in storage: any ProcessorStorage) async throws -> [Double] {
        let data = try #require(await storage.data(forKey: SessionTrackingProcessor.Keys.historyStorageKey))
        return try JSONDecoder().decode(History.self, from: data).sessions.map(\.start)
    }
}
