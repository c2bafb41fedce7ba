import Foundation
import TelemetryKitDefaults
import TelemetryKitSupport
import TelemetryKitTesting
import Testing

/// What a v3 app and its tests meet after the rename, each as v3 behaves: its queue type, its
/// own storage's users, `terminate` before `initialize`. Part of the serialized facade suite.
extension FacadeTests {
    /// v3's keys, as its SDK left them in a storage the app passed to `initialize(storage:)`.
    private func v3Storage(now: Date) async throws -> V3DictionaryStorage {
        let storage = V3DictionaryStorage()
        await storage.set("0B9E2F4C-6A51-4D3B-8C7E-9F1A2B3C4D5E", forKey: "installID")
        await storage.set("v3-user-42", forKey: "defaultUserIdentifier")
        await storage.set("2024-01-15", forKey: "firstSessionDate")
        await storage.set(5, forKey: "deletedSessionsCount")
        // v3 wrote `st` as seconds since 2001-01-01 (JSONEncoder's default).
        let twoDaysAgo = now.addingTimeInterval(-2 * 86_400).timeIntervalSinceReferenceDate
        let yesterday = now.addingTimeInterval(-86_400).timeIntervalSinceReferenceDate
        let sessions = #"[{"st":\#(twoDaysAgo),"dn":120},{"st":\#(yesterday),"dn":60}]"#
        await storage.set(Data(sessions.utf8), forKey: "recentSessions")
        return storage
    }

    @Test func aV3AppsOwnStorageKeepsItsUserAndHistory() async throws {
        await Telemetry.terminate()
        let storage = try await v3Storage(now: Date())
        let spy = SpyEventTransmitter()
        try await initialize(processors: Telemetry.defaultProcessors(), spy: spy, storage: storage)
        await Telemetry.event("Screen.shown")
        await Telemetry.flush()

        let events = spy.deliveredEvents
        #expect(events.map(\.type) == ["TelemetryDeck.Session.started", "Screen.shown"])
        let screen = try #require(events.last)
        // The same hash v3 sent for this user (no salt configured).
        #expect(screen.clientUser == SHA256Hex.digest("v3-user-42"))
        // 5 deleted + 2 kept + the session this launch started.
        #expect(screen.payload[SessionTrackingProcessor.Keys.totalSessionsCount] == .int(8))
        #expect(screen.payload["TelemetryDeck.Acquisition.firstSessionDate"] == .string("2024-01-15"))
        #expect(screen.payload["TelemetryDeck.Acquisition.isNewInstall"] == nil)
        await Telemetry.terminate()

        // Adopted once: a second launch on the same storage is the same user, one session on.
        let second = SpyEventTransmitter()
        try await initialize(processors: Telemetry.defaultProcessors(), spy: second, storage: storage)
        await Telemetry.event("Screen.shown")
        await Telemetry.flush()
        let again = try #require(second.deliveredEvents.last)
        #expect(second.deliveredEvents.map(\.type) == ["TelemetryDeck.Session.started", "Screen.shown"])
        #expect(again.clientUser == SHA256Hex.digest("v3-user-42"))
        #expect(again.payload[SessionTrackingProcessor.Keys.totalSessionsCount] == .int(9))
        await Telemetry.terminate()
    }

    @Test func aStorageWithoutV3KeysIsANewInstall() async throws {
        await Telemetry.terminate()
        let spy = SpyEventTransmitter()
        try await initialize(processors: Telemetry.defaultProcessors(), spy: spy, storage: V3DictionaryStorage())
        await Telemetry.flush()
        #expect(
            spy.deliveredEvents.map(\.type) == [
                "TelemetryDeck.Acquisition.newInstallDetected", "TelemetryDeck.Session.started",
            ]
        )
        await Telemetry.terminate()
    }

    @Test func terminateBeforeInitializeDiscardsTheBuffer() async throws {
        await Telemetry.terminate()
        await Telemetry.event("Gathered.beforeLogout")
        await Telemetry.event("Gathered.second")
        await Telemetry.terminate()
        await Telemetry.event("Sent.afterTerminate")

        let spy = SpyEventTransmitter()
        try await initialize(processors: [], spy: spy)
        await Telemetry.flush()
        #expect(spy.deliveredEvents.map(\.type) == ["Sent.afterTerminate"])
        await Telemetry.terminate()
    }

    @Test func v3sDefaultEventCacheIsAcceptedByInitialize() async throws {
        await Telemetry.terminate()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("v3-cache-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let cache = DefaultEventCache(fileURL: directory.appendingPathComponent("queue.json"), cacheLimit: 50)
        let spy = SpyEventTransmitter()
        try await Telemetry.initialize(configuration: config, processors: [], cache: cache, transmitter: spy)
        await Telemetry.event("Queued.inV3Cache")
        #expect(await cache.count() == 1)
        await Telemetry.flush()
        #expect(spy.deliveredEvents.map(\.type) == ["Queued.inV3Cache"])
        #expect(await cache.count() == 0)
        await Telemetry.terminate()
    }
}

/// TelemetryDeck v3's `DefaultEventCache`, used by hand as v3's own tests and apps use it.
struct DefaultEventCacheTests {
    private func event(_ number: Int) -> Event {
        Event(
            appID: "APP",
            type: "Event.\(number)",
            clientUser: "user",
            sessionID: nil,
            receivedAt: Date(timeIntervalSince1970: 1_750_000_000 + Double(number)),
            payload: ["n": .int(Int64(number))],
            floatValue: nil,
            isTestMode: false
        )
    }

    private func temporaryFile() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("v3-cache-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory.appendingPathComponent("telemetrysignalcache.json")
    }

    @Test func addPopAndCountAsV3() async {
        let cache = DefaultEventCache(fileURL: URL(fileURLWithPath: "/nonexistent/queue.json"), cacheLimit: 10_000)
        for number in 0..<150 { await cache.add(event(number)) }
        #expect(await cache.count() == 150)
        // v3 pops at most 100 at a time, oldest first.
        let first = await cache.pop()
        #expect(first.map(\.type) == (0..<100).map { "Event.\($0)" })
        #expect(await cache.count() == 50)
        let second = await cache.pop()
        #expect(second.map(\.type) == (100..<150).map { "Event.\($0)" })
        #expect(await cache.pop().isEmpty)
    }

    @Test func theOldestAreEvictedBeyondTheLimit() async throws {
        let cache = DefaultEventCache(fileURL: try temporaryFile(), cacheLimit: 3)
        await cache.add((0..<5).map(event))
        #expect(await cache.cacheLimit == 3)
        #expect(await cache.pop().map(\.type) == ["Event.2", "Event.3", "Event.4"])
        #expect(await cache.evictedCount() == 2)
    }

    @Test func persistThenRestoreKeepsTheOrderAheadOfNewEvents() async throws {
        let file = try temporaryFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        let before = DefaultEventCache(fileURL: file)
        await before.add([event(1), event(2)])
        #expect(await before.persist() == nil)
        #expect(FileManager.default.fileExists(atPath: file.path))

        let after = DefaultEventCache(fileURL: file)
        await after.add(event(3))
        await after.restore()
        #expect(await after.pop().map(\.type) == ["Event.1", "Event.2", "Event.3"])
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(await after.fileURL == file)
    }

    @Test func restoresTheFileV3Wrote() async throws {
        let file = try temporaryFile()
        defer { try? FileManager.default.removeItem(at: file.deletingLastPathComponent()) }
        // v3's encoding: no id, `receivedAt` as `yyyy-MM-dd'T'HH:mm:ssZ`, `isTestMode` a string.
        let written = #"""
            [{"appID":"APP","type":"Left.byV3","clientUser":"abc","receivedAt":"2026-11-23T19:33:43+0000",\#
            "payload":{"plan":"pro"},"isTestMode":"false"}]
            """#
        try Data(written.utf8).write(to: file)
        let cache = DefaultEventCache(fileURL: file)
        await cache.restore()
        let restored = await cache.pop()
        #expect(restored.map(\.type) == ["Left.byV3"])
        #expect(restored.first?.payload["plan"] == .string("pro"))
        #expect(restored.first?.receivedAt == Date(timeIntervalSince1970: 1_795_462_423))
    }

    @Test func aFailedPersistSaysSoAndKeepsTheEvents() async {
        let cache = DefaultEventCache(fileURL: URL(fileURLWithPath: "/nonexistent-directory/queue.json"))
        await cache.add(event(1))
        #expect(await cache.persist() != nil)
        #expect(await cache.count() == 1)
    }
}
