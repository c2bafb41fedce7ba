import Foundation
import TelemetryKitDefaults
import TelemetryKitSupport
import TelemetryKitTesting
import Testing

/// Event queues as TelemetryDeck's SDKs wrote them to the caches directory.
enum EventFixtures {
    /// v3 (`JSONEncoder.telemetryEncoder`): dates as `yyyy-MM-dd'T'HH:mm:ssZ`, `isTestMode`
    /// as a string, payload values as native JSON.
    static let version3File = """
        [
          {"appID":"APP-1","type":"Legacy.first","clientUser":"c0ffee",
           "sessionID":"0B2E8C6A-0E54-4C7B-A0E1-1D3C5B7A9F11","receivedAt":"2023-12-31T23:59:30+0000",
           "payload":{"screen":"home","count":3,"ratio":0.5,"flag":true},"floatValue":1.5,"isTestMode":"true"},
          {"appID":"APP-1","type":"Legacy.second","clientUser":"c0ffee","receivedAt":"2023-12-31T23:59:40+0000",
           "payload":{},"isTestMode":"false"}
        ]
        """

    /// v2 (`JSONEncoder()`): dates as seconds since 2001-01-01, string payloads, no test-mode
    /// case change.
    static let version2File = """
        [{"appID":"6F2B1C4E-2D3A-4B5C-8D9E-0F1A2B3C4D5E","type":"Legacy.v2","clientUser":"beef",
          "sessionID":"S-2","receivedAt":725759980,"payload":{"platform":"iOS"},"isTestMode":"false"}]
        """

    /// Every other date form and flag form either SDK (or a hand-edited file) may hold.
    static let mixedFile = """
        [
          {"appID":"APP-1","type":"Legacy.number","clientUser":"u","receivedAt":725759980.5,"isTestMode":false},
          {"appID":"APP-1","type":"Legacy.iso","clientUser":"u","receivedAt":"2023-12-31T23:59:50.250Z",
           "isTestMode":true,"payload":null,"floatValue":null,"sessionID":null},
          {"appID":"APP-1","type":"Legacy.offset","clientUser":"u","receivedAt":"2024-01-01T01:59:55+02:00",
           "isTestMode":"TRUE"},
          {"appID":"APP-1","type":"Legacy.west","clientUser":"u","receivedAt":"2023-12-31T18:59:58-0500"}
        ]
        """

    /// Readable events among unreadable ones.
    static let partlyDamagedFile = """
        [
          {"appID":"APP-1","type":"Legacy.kept","clientUser":"u","receivedAt":"2023-12-31T23:59:30+0000",
           "payload":{"ok":"yes","nested":{"a":1},"nothing":null},"isTestMode":"false"},
          {"appID":"APP-1","clientUser":"u","receivedAt":"2023-12-31T23:59:30+0000"},
          {"appID":"APP-1","type":"Legacy.badDate","clientUser":"u","receivedAt":"last Tuesday"},
          42,
          {"appID":"APP-1","type":"Legacy.tags","clientUser":"u","receivedAt":725759980,
           "payload":["screen:home","broken","ratio:1:2"]}
        ]
        """
}

/// A cache whose appends fail until told otherwise.
final class FailingEventCache: EventCaching {
    let base = InMemoryEventCache()
    let failing = Locked(true)

    struct Refused: Error {}

    func append(_ events: [Event]) async throws {
        if failing.current { throw Refused() }
        try await base.append(events)
    }
    func peek(limit: Int) async throws -> [Event] { try await base.peek(limit: limit) }
    func remove(ids: [UUID]) async throws { try await base.remove(ids: ids) }
    func count() async -> Int { await base.count() }
    func removeAll() async throws { try await base.removeAll() }
    func evictedCount() async -> Int { await base.evictedCount() }
}

@Suite("TelemetryDeckImporter: queued events")
struct TelemetryDeckEventImportTests {
    private static func date(_ text: String) throws -> Date {
        try #require(ISO8601.date(from: text))
    }

    /// Writes `contents` to a file named `name` in `directory`.
    private static func write(_ contents: String, _ name: String, in directory: TemporaryDirectory) throws -> URL {
        let file = directory.file(name)
        try Data(contents.utf8).write(to: file)
        return file
    }

    @Test func version3EventsMoveIntoTheCacheExactlyAndTheFileGoes() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try Self.write(EventFixtures.version3File, TelemetryDeckImporter.eventCacheFileName, in: directory)
        let harness = await TelemetryDeckImporterTests.unstartedClient()

        let report = await TelemetryDeckImporter(storage: nil, eventFiles: [file]).run(into: harness.client)

        #expect(report == .init(state: .nothingFound, events: .imported, importedEventCount: 2))
        #expect(!FileManager.default.fileExists(atPath: file.path))
        let cached = try await harness.cache.peek(limit: 10)
        #expect(cached.map(\.type) == ["Legacy.first", "Legacy.second"])
        let first = try #require(cached.first)
        #expect(first.appID == "APP-1")
        #expect(first.clientUser == "c0ffee")
        #expect(first.sessionID == "0B2E8C6A-0E54-4C7B-A0E1-1D3C5B7A9F11")
        #expect(first.receivedAt == (try Self.date("2023-12-31T23:59:30Z")))
        #expect(
            first.payload == ["screen": .string("home"), "count": .int(3), "ratio": .double(0.5), "flag": .bool(true)]
        )
        #expect(first.floatValue == 1.5)
        #expect(first.isTestMode == "true")
        let second = try #require(cached.last)
        #expect(second.sessionID == nil)
        #expect(second.payload.isEmpty)
        #expect(second.floatValue == nil)
        #expect(second.isTestMode == "false")
        #expect(Set(cached.map(\.id)).count == 2)
        #expect(harness.logger.warnings.isEmpty)
    }

    @Test func everyDateAndFlagFormIsRead() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try Self.write(EventFixtures.mixedFile, TelemetryDeckImporter.eventCacheFileName, in: directory)
        let harness = await TelemetryDeckImporterTests.unstartedClient()

        let report = await TelemetryDeckImporter(storage: nil, eventFiles: [file]).run(into: harness.client)

        #expect(report.importedEventCount == 4)
        let cached = try await harness.cache.peek(limit: 10)
        #expect(
            cached.map(\.receivedAt) == [
                try Self.date("2023-12-31T23:59:40.500Z"),
                try Self.date("2023-12-31T23:59:50.250Z"),
                try Self.date("2023-12-31T23:59:55Z"),
                try Self.date("2023-12-31T23:59:58Z"),
            ]
        )
        #expect(cached.map(\.isTestMode) == ["false", "true", "true", "false"])
        #expect(cached[1].payload.isEmpty)
        #expect(cached[1].sessionID == nil)
        #expect(harness.logger.warnings.isEmpty)
    }

    @Test func unreadableEventsAreSkippedAndCountedTheRestIsImported() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try Self.write(EventFixtures.partlyDamagedFile, "telemetrysignalcache.json", in: directory)
        let harness = await TelemetryDeckImporterTests.unstartedClient()

        let report = await TelemetryDeckImporter(storage: nil, eventFiles: [file]).run(into: harness.client)

        #expect(report.events == .imported)
        #expect(report.importedEventCount == 2)
        #expect(report.skippedEventCount == 3)
        let cached = try await harness.cache.peek(limit: 10)
        #expect(cached.map(\.type) == ["Legacy.kept", "Legacy.tags"])
        #expect(cached.first?.payload == ["ok": .string("yes")])
        #expect(cached.last?.payload == ["screen": .string("home"), "ratio": .string("1:2")])
        #expect(
            harness.logger.warnings == [
                "TelemetryDeck import: telemetrysignalcache.json: skipped 3 unreadable event(s) and 3 unreadable "
                    + "payload value(s)"
            ]
        )
    }

    @Test func aFileThatIsNoEventQueueIsLeftAloneWithAWarning() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try Self.write("{\"appID\": \"APP-1\"", "telemetrysignalcache.json", in: directory)
        let harness = await TelemetryDeckImporterTests.unstartedClient()

        let report = await TelemetryDeckImporter(storage: nil, eventFiles: [file]).run(into: harness.client)

        #expect(report == .init(state: .nothingFound, events: .unreadable, unreadableFileCount: 1))
        #expect(FileManager.default.fileExists(atPath: file.path))
        #expect(await harness.cache.count() == 0)
        #expect(harness.logger.warnings.count == 1)
        #expect(harness.logger.warnings.first?.contains("is not a readable event queue (17 bytes)") == true)
        // Not read again.
        #expect(await harness.storage.bool(forKey: TelemetryDeckImporter.Keys.eventsImported))
    }

    @Test func whenTheCacheFailsTheFileStaysAndTheNextLaunchImportsIt() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try Self.write(EventFixtures.version3File, "telemetrysignalcache.json", in: directory)
        let storage = InMemoryProcessorStorage()
        let cache = FailingEventCache()
        let logger = RecordingLogger()
        let client = TelemetryClient(
            configuration: .init(appID: "TEST-APP"),
            destinations: [Destination(id: "ingest", transmitter: SpyEventTransmitter(), cache: cache)],
            storage: storage,
            logger: logger
        )
        let importer = TelemetryDeckImporter(storage: nil, eventFiles: [file])

        let failed = await importer.run(into: client, destinationID: "ingest")

        #expect(failed.events == .failed)
        #expect(FileManager.default.fileExists(atPath: file.path))
        #expect(await storage.bool(forKey: TelemetryDeckImporter.Keys.eventsImported) == false)
        #expect(logger.warnings.count == 1)
        #expect(logger.warnings.first?.hasPrefix("TelemetryDeck import: 2 event(s) could not be cached") == true)

        cache.failing.set(false)
        let next = await importer.run(into: client, destinationID: "ingest")

        #expect(next.events == .imported)
        #expect(next.importedEventCount == 2)
        #expect(await cache.count() == 2)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func bothQueuesAreImportedOldestFormatFirst() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let version2 = try Self.write(EventFixtures.version2File, "telemetrysignalcache", in: directory)
        let version3 = try Self.write(EventFixtures.version3File, "telemetrysignalcache.json", in: directory)
        let harness = await TelemetryDeckImporterTests.unstartedClient()

        let report = await TelemetryDeckImporter(storage: nil, eventFiles: [version2, version3])
            .run(into: harness.client)

        #expect(report.importedEventCount == 3)
        let cached = try await harness.cache.peek(limit: 10)
        #expect(cached.map(\.type) == ["Legacy.v2", "Legacy.first", "Legacy.second"])
        #expect(cached.first?.appID == "6F2B1C4E-2D3A-4B5C-8D9E-0F1A2B3C4D5E")
        #expect(cached.first?.payload == ["platform": .string("iOS")])
        #expect(cached.first?.receivedAt == (try Self.date("2023-12-31T23:59:40Z")))
        #expect(!FileManager.default.fileExists(atPath: version2.path))
        #expect(!FileManager.default.fileExists(atPath: version3.path))
    }

    @Test func withAnalyticsDisabledTheQueueIsDiscardedButTheStateAdopted() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try Self.write(EventFixtures.version3File, "telemetrysignalcache.json", in: directory)
        let storage = InMemoryProcessorStorage()
        await storage.set(true, forKey: TelemetryStorageKeys.analyticsDisabled)
        let harness = await TelemetryDeckImporterTests.unstartedClient(storage: storage)

        let report = await TelemetryDeckImporter(
            storage: await TelemetryDeckImporterTests.version3Storage(),
            eventFiles: [file]
        ).run(into: harness.client)

        #expect(report.state == .imported)
        #expect(report.adoptedUserIdentifier)
        #expect(report.events == .discarded)
        #expect(await harness.cache.count() == 0)
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func importedEventsAreDeliveredBeforeTheNewClientsOwn() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = try Self.write(EventFixtures.version3File, "telemetrysignalcache.json", in: directory)
        let harness = await TelemetryDeckImporterTests.unstartedClient()
        harness.client.event("Sent.beforeStart")

        await TelemetryDeckImporter(
            storage: await TelemetryDeckImporterTests.version3Storage(),
            eventFiles: [file]
        ).run(into: harness.client)
        await harness.client.start()
        await harness.client.flush()

        let types = harness.spy.deliveredEvents.map(\.type)
        #expect(types.prefix(2) == ["Legacy.first", "Legacy.second"])
        #expect(Set(types.dropFirst(2)) == [SessionTrackingProcessor.Keys.sessionStartedEvent, "Sent.beforeStart"])
        #expect(types.count == 4)
        await harness.client.shutdown()
    }
}
