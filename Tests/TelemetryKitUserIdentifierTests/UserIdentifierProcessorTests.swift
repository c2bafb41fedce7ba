import TelemetryKit
import TelemetryKitTesting
import TelemetryKitUserIdentifier
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct UserIdentifierProcessorTests {
    private let key = UserIdentifierProcessor.Keys.installationIdentifier

    private func started(
        _ processor: UserIdentifierProcessor,
        storage: InMemoryProcessorStorage = InMemoryProcessorStorage()
    ) async -> ProcessorPipeline {
        await processor.start(storage: storage, logger: RecordingLogger(), emitter: RecordingEmitter())
        return ProcessorPipeline(processors: [processor], finalizer: .test)
    }

    // MARK: Resolution order

    @Test func thePerEventIdentifierWinsOverEverything() async throws {
        let pipeline = await started(UserIdentifierProcessor(defaultUser: "default-user"))

        let event = try await pipeline.process(
            EventInput("Screen.shown", customUserID: "event-user"),
            context: EventContext(userIdentifier: "client-user")
        )

        #expect(event.clientUser == EventFinalizer.test.clientUser(for: "event-user"))
    }

    @Test func theClientIdentifierWinsOverTheDefaultUser() async throws {
        let pipeline = await started(UserIdentifierProcessor(defaultUser: "default-user"))

        let event = try await pipeline.process(
            EventInput("Screen.shown"),
            context: EventContext(userIdentifier: "client-user")
        )

        #expect(event.clientUser == EventFinalizer.test.clientUser(for: "client-user"))
    }

    @Test func theDefaultUserWinsOverThePlatformDefault() async throws {
        let storage = InMemoryProcessorStorage()
        let pipeline = await started(UserIdentifierProcessor(defaultUser: "default-user"), storage: storage)

        let event = try await pipeline.process(EventInput("Screen.shown"))

        #expect(event.clientUser == EventFinalizer.test.clientUser(for: "default-user"))
        // With a default user the platform default is never needed, so nothing is persisted.
        #expect(storage.keys.isEmpty)
    }

    @Test func emptyIdentifiersAreSkipped() async throws {
        let pipeline = await started(UserIdentifierProcessor(defaultUser: "default-user"))

        let toClient = try await pipeline.process(
            EventInput("Screen.shown", customUserID: ""),
            context: EventContext(userIdentifier: "client-user")
        )
        let toDefault = try await pipeline.process(
            EventInput("Screen.shown", customUserID: ""),
            context: EventContext(userIdentifier: "")
        )

        #expect(toClient.clientUser == EventFinalizer.test.clientUser(for: "client-user"))
        #expect(toDefault.clientUser == EventFinalizer.test.clientUser(for: "default-user"))
        #expect(UserIdentifierProcessor(defaultUser: "").defaultUser == nil)
    }

    // MARK: Platform default (a persisted random UUID off iOS)

    @Test func thePlatformDefaultIsARandomUUIDPersistedInStorage() async throws {
        let storage = InMemoryProcessorStorage()
        let pipeline = await started(UserIdentifierProcessor(), storage: storage)

        let event = try await pipeline.process(EventInput("Screen.shown"))

        let stored = try #require(await storage.string(forKey: key))
        #expect(UUID(uuidString: stored) != nil)
        #expect(event.clientUser == EventFinalizer.test.clientUser(for: stored))
        #expect(event.clientUser != EventFinalizer.test.clientUser(for: nil))
    }

    @Test func twoInstancesSharingStorageUseTheSameIdentifier() async throws {
        let storage = InMemoryProcessorStorage()
        let first = await started(UserIdentifierProcessor(), storage: storage)
        let second = await started(UserIdentifierProcessor(), storage: storage)

        let one = try await first.process(EventInput("Screen.shown"))
        let two = try await second.process(EventInput("Screen.shown"))

        #expect(one.clientUser == two.clientUser)
        let stored = try #require(await storage.string(forKey: key))
        #expect(one.clientUser == EventFinalizer.test.clientUser(for: stored))
    }

    @Test func twoStoragesGetDifferentIdentifiers() async throws {
        let firstStorage = InMemoryProcessorStorage()
        let secondStorage = InMemoryProcessorStorage()
        let first = await started(UserIdentifierProcessor(), storage: firstStorage)
        let second = await started(UserIdentifierProcessor(), storage: secondStorage)

        let one = try await first.process(EventInput("Screen.shown"))
        let two = try await second.process(EventInput("Screen.shown"))

        #expect(one.clientUser != two.clientUser)
        let firstStored = try #require(await firstStorage.string(forKey: key))
        let secondStored = try #require(await secondStorage.string(forKey: key))
        #expect(firstStored != secondStored)
    }

    @Test func anIdentifierAlreadyInStorageIsReused() async throws {
        let storage = InMemoryProcessorStorage()
        await storage.set("install-from-last-launch", forKey: key)
        let pipeline = await started(UserIdentifierProcessor(), storage: storage)

        let event = try await pipeline.process(EventInput("Screen.shown"))

        #expect(event.clientUser == EventFinalizer.test.clientUser(for: "install-from-last-launch"))
        #expect(await storage.string(forKey: key) == "install-from-last-launch")
    }

    @Test func anIdentifierUsedBeforeStartIsTheOneStartPersists() async throws {
        let processor = UserIdentifierProcessor()
        let pipeline = ProcessorPipeline(processors: [processor], finalizer: .test)
        let storage = InMemoryProcessorStorage()

        let before = try await pipeline.process(EventInput("Screen.shown"))
        await processor.start(storage: storage, logger: RecordingLogger(), emitter: RecordingEmitter())
        let after = try await pipeline.process(EventInput("Screen.shown"))

        #expect(before.clientUser == after.clientUser)
        let stored = try #require(await storage.string(forKey: key))
        #expect(after.clientUser == EventFinalizer.test.clientUser(for: stored))
    }
}
