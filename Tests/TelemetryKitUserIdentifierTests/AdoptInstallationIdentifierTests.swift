import TelemetryKit
import TelemetryKitTesting
import TelemetryKitUserIdentifier
import Testing

struct AdoptInstallationIdentifierTests {
    private let key = UserIdentifierProcessor.Keys.installationIdentifier

    @Test func anAdoptedIdentifierIsThePlatformDefaultAfterStart() async throws {
        let storage = InMemoryProcessorStorage()
        let outcome = await UserIdentifierProcessor.adoptInstallationIdentifier("legacy-user", into: storage)
        #expect(outcome == .adopted)
        #expect(await storage.string(forKey: key) == "legacy-user")

        let processor = UserIdentifierProcessor()
        await processor.start(storage: storage, logger: RecordingLogger(), emitter: RecordingEmitter())
        let pipeline = ProcessorPipeline(processors: [processor], finalizer: .test)
        let event = try await pipeline.process(EventInput("Screen.shown"))
        #if canImport(UIKit) && !os(watchOS)
        _ = event  // the vendor identifier wins there
        #else
        #expect(event.clientUser == EventFinalizer.test.clientUser(for: "legacy-user"))
        #endif
    }

    @Test func anIdentifierOfItsOwnStays() async {
        let storage = InMemoryProcessorStorage()
        await storage.set("own-id", forKey: key)

        let outcome = await UserIdentifierProcessor.adoptInstallationIdentifier("legacy-user", into: storage)

        #expect(outcome == .keptExisting)
        #expect(await storage.string(forKey: key) == "own-id")
    }

    @Test(arguments: ["", "   "])
    func blankIdentifiersAreIgnored(identifier: String) async {
        let storage = InMemoryProcessorStorage()

        let outcome = await UserIdentifierProcessor.adoptInstallationIdentifier(identifier, into: storage)

        #expect(outcome == .ignoredBlank)
        #expect(storage.keys.isEmpty)
    }
}
