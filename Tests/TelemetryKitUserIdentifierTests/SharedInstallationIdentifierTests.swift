import Foundation
import TelemetryKit
import TelemetryKitPlistStorage
import TelemetryKitTesting
import TelemetryKitUserIdentifier
import Testing

/// An app and its extension sharing a storage file (app group): two storage instances on one
/// plist file, each with its own view in memory as two processes have.
struct SharedInstallationIdentifierTests {
    private let key = UserIdentifierProcessor.Keys.installationIdentifier

    /// The extension is no new install: it reads the app's installation identifier, and its
    /// events hash to the app's `clientUser`. (On iOS, tvOS and visionOS both use the vendor
    /// identifier, which is the same for an app and its extensions.)
    @Test func aSecondProcessOnTheSharedStorageIsTheSameUser() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("TelemetryKit.plist")
        let finalizer = EventFinalizer(appID: "TEST-APP", salt: "salt", logger: SilentLogger())

        let firstStorage = try PlistProcessorStorage(fileURL: url)
        let first = UserIdentifierProcessor()
        await first.start(storage: firstStorage, logger: RecordingLogger(), emitter: RecordingEmitter())
        let firstEvent = try await ProcessorPipeline(processors: [first], finalizer: finalizer)
            .process(EventInput("First.launched"))
        await firstStorage.flush()

        let secondStorage = try PlistProcessorStorage(fileURL: url)
        let second = UserIdentifierProcessor()
        await second.start(storage: secondStorage, logger: RecordingLogger(), emitter: RecordingEmitter())
        let secondEvent = try await ProcessorPipeline(processors: [second], finalizer: finalizer)
            .process(EventInput("Second.launched"))
        await secondStorage.flush()

        let identifier = try #require(await first.currentUserIdentifier())
        #expect(UUID(uuidString: identifier) != nil)
        #expect(await second.currentUserIdentifier() == identifier)
        #expect(secondEvent.clientUser == firstEvent.clientUser)
        #expect(secondEvent.clientUser == finalizer.clientUser(for: identifier))
        // The file holds the one identifier; the second process wrote none of its own.
        #expect(try await PlistProcessorStorage(fileURL: url).string(forKey: key) == identifier)
        #expect(secondStorage.diagnostics.writeCount == 0)
    }
}
