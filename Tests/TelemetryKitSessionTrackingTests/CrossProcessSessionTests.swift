import Foundation
import TelemetryKit
import TelemetryKitPlistStorage
import TelemetryKitSessionTracking
import TelemetryKitTesting
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An app and its extension sharing a storage file (app group): two storage instances on one
/// plist file, each with its own view in memory as two processes have. The app's processor
/// names a live process other than this one (the test runner's parent), the extension's this
/// process.
@Suite("SessionTrackingProcessor: sessions across processes")
struct CrossProcessSessionTests {
    /// A widget started while the app's session is active joins it: same session id, one
    /// session counted, no `Session.started` or `newInstallDetected`, no `isNewInstall`. The
    /// second executable's path needs every kind of JSON escape in the stored record.
    @Test(arguments: ["App", "/Apps/My \"App\"\\Ünïcode\tname\n\u{1}"])
    func anExtensionStartedDuringTheAppsSessionJoinsIt(appExecutable: String) async throws {
        let shared = try SharedStorageFile()
        defer { shared.remove() }
        let app = try await shared.launch(process: getppid(), executable: appExecutable)
        let appEvent = try await app.event("App.opened")
        #expect(app.emitter.sentNames == [Keys.newInstallDetectedEvent, Keys.sessionStartedEvent])
        shared.clock.advance(by: 40)
        _ = try await app.event("App.browsed")
        await app.processor.waitUntilIdle()
        await app.storage.flush()

        shared.clock.advance(by: 100)
        let widget = try await shared.launch(process: getpid(), executable: "Widget")
        let widgetEvent = try await widget.event("Widget.refreshed")

        #expect(widget.emitter.sentNames == [])
        #expect(widgetEvent.sessionID == appEvent.sessionID)
        #expect(widget.processor.activeSessionID == app.processor.activeSessionID)
        #expect(widgetEvent.int(Keys.totalSessionsCount) == 1)
        #expect(widgetEvent.string(Keys.firstSessionDate) == "2024-01-01")
        #expect(widgetEvent.bool(Keys.isNewInstall) == nil)

        // The widget keeps the session active for the others: its activity is in the record,
        // and the history still holds one session.
        shared.clock.advance(by: 20)
        _ = try await widget.event("Widget.tapped")
        await widget.processor.stop()
        await widget.storage.flush()
        let reader = try shared.storage()
        let record = try #require(await reader.data(forKey: Keys.activeSessionStorageKey))
        let decoded = try JSONDecoder().decode(StoredRecord.self, from: record)
        #expect(decoded.id == app.processor.activeSessionID)
        #expect(decoded.lastActivity == shared.clock.now.timeIntervalSince1970)
        #expect(decoded.process == getppid())
        #expect(decoded.executable == appExecutable)
        let history = try #require(await reader.data(forKey: Keys.historyStorageKey))
        #expect(try JSONDecoder().decode(WrittenHistory.self, from: history).sessions.count == 1)
    }

    /// A widget started once the app's session has been idle for the session timeout starts
    /// its own session: counted, announced, and no new install.
    @Test func anExtensionStartedAfterTheTimeoutStartsItsOwnSession() async throws {
        let shared = try SharedStorageFile()
        defer { shared.remove() }
        let app = try await shared.launch(process: getppid(), executable: "App")
        let appEvent = try await app.event("App.opened")
        await app.processor.waitUntilIdle()
        await app.storage.flush()

        shared.clock.advance(by: SessionTrackingProcessor.defaultSessionTimeout + 1)
        let widget = try await shared.launch(process: getpid(), executable: "Widget")
        let widgetEvent = try await widget.event("Widget.refreshed")

        #expect(widget.emitter.sentNames == [Keys.sessionStartedEvent])
        #expect(widgetEvent.sessionID != appEvent.sessionID)
        #expect(widgetEvent.int(Keys.totalSessionsCount) == 2)
        #expect(widgetEvent.bool(Keys.isNewInstall) == nil)
    }

    /// A session whose process has exited is not joined, however recent: an app relaunched
    /// after a crash starts a new session, as it did before processes shared storage.
    @Test func aSessionOfAnExitedProcessIsNotJoined() async throws {
        let shared = try SharedStorageFile()
        defer { shared.remove() }
        let crashed = try await shared.launch(process: try await exitedProcessIdentifier(), executable: "App")
        let before = try await crashed.event("App.opened")
        await crashed.processor.waitUntilIdle()
        await crashed.storage.flush()

        shared.clock.advance(by: 10)
        let relaunched = try await shared.launch(process: getpid(), executable: "Widget")
        let after = try await relaunched.event("App.opened")

        #expect(relaunched.emitter.sentNames == [Keys.sessionStartedEvent])
        #expect(after.sessionID != before.sessionID)
        #expect(after.int(Keys.totalSessionsCount) == 2)
    }

    /// The same executable never joins a recorded session, even one whose process looks alive
    /// (a sandbox may hide that a process is gone): an app relaunched after a crash starts a
    /// new session.
    @Test func theSameExecutableNeverJoins() async throws {
        let shared = try SharedStorageFile()
        defer { shared.remove() }
        let previous = try await shared.launch(process: getppid(), executable: "App")
        let before = try await previous.event("App.opened")
        await previous.processor.waitUntilIdle()
        await previous.storage.flush()

        shared.clock.advance(by: 10)
        let relaunched = try await shared.launch(process: getpid(), executable: "App")
        let after = try await relaunched.event("App.opened")

        #expect(relaunched.emitter.sentNames == [Keys.sessionStartedEvent])
        #expect(after.sessionID != before.sessionID)
        #expect(after.int(Keys.totalSessionsCount) == 2)
    }
}

/// One plist file shared by the launches of a test, and their clock.
private struct SharedStorageFile {
    let directory: TemporaryDirectory
    let clock = ManualClock(start: Date(timeIntervalSince1970: 1_704_067_200))
    let logger = RecordingLogger()

    init() throws {
        directory = try TemporaryDirectory()
    }

    /// A new storage instance on the file: a process's view of it, read now.
    func storage() throws -> PlistProcessorStorage {
        try PlistProcessorStorage(fileURL: directory.file("TelemetryKit.plist"), logger: logger, clock: clock)
    }

    /// A processor started as process `process` on a new storage instance.
    func launch(process: Int32, executable: String) async throws -> SharedLaunch {
        let storage = try storage()
        let processor = SessionTrackingProcessor(
            timeZoneOffset: 0,
            processIdentifier: process,
            executable: executable
        )
        let emitter = RecordingEmitter(clock: clock)
        await processor.start(storage: storage, logger: logger, emitter: emitter)
        let pipeline = ProcessorPipeline(
            processors: [processor],
            finalizer: EventFinalizer(appID: "TEST-APP", logger: logger)
        )
        return SharedLaunch(processor: processor, emitter: emitter, pipeline: pipeline, storage: storage, clock: clock)
    }

    func remove() {
        directory.remove()
    }
}

private struct SharedLaunch {
    let processor: SessionTrackingProcessor
    let emitter: RecordingEmitter
    let pipeline: ProcessorPipeline
    let storage: PlistProcessorStorage
    let clock: ManualClock

    func event(_ name: String) async throws -> Event {
        try await pipeline.process(EventInput(name, timestamp: clock.now))
    }
}

/// The stored session record, decoded independently of the processor's own type.
private struct StoredRecord: Decodable {
    var id: UUID
    var start: Double
    var lastActivity: Double
    var process: Int32
    var executable: String
}

private struct WrittenHistory: Decodable {
    struct Session: Decodable {
        var start: Double
        var seconds: Double
    }

    var sessions: [Session]
}
