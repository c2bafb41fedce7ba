import Foundation
import TelemetryKitCacheSupport
import TelemetryKitTesting
import Testing

/// Two lock instances on one path stand in for two processes: `flock` belongs to the open file
/// description, so they exclude each other as processes do.
struct SidecarFileLockTests {
    /// The JSON-lines cache's use: the first instance holds it exclusively; a second is refused
    /// at once, and gets it once the first is released.
    @Test func anExclusiveHolderRefusesASecondUntilReleased() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("events.jsonl.lock").path
        var first: SidecarFileLock? = try SidecarFileLock(path: path)
        let second = try SidecarFileLock(path: path)

        #expect(try first?.lock(.exclusive, wait: false) == true)
        #expect(try second.lock(.exclusive, wait: false) == false)
        #expect(second.mode == nil)
        first = nil
        #expect(try second.lock(.exclusive, wait: false) == true)
        #expect(second.mode == .exclusive)
    }

    /// A child process being started holds a copy of every descriptor until it runs its
    /// program, and `flock` belongs to the open file description those copies share: a lock
    /// released only by closing its descriptor stays held by such a copy for that moment, and
    /// the next instance in this process was refused (13,361 of 200,000 openings in a C
    /// reproduction). Releasing unlocks first, so a spawn in progress never holds a lock for
    /// an instance that is gone.
    @Test func aReleasedLockIsFreeWhileChildProcessesAreBeingStarted() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("events.jsonl.lock").path
        let (openings, refusals) = try await repeatWhileStartingChildProcesses {
            try SidecarFileLock(path: path).lock(.exclusive, wait: false)
        }
        #expect(openings > 0)
        #expect(refusals == 0)
    }

    /// The SQLite cache's use: instances hold it shared while they have the file open; one
    /// converts to exclusive only when alone (still shared when not), and while it holds it
    /// exclusively nobody else can take it, until it shares again.
    @Test func aSharedHolderConvertsToExclusiveOnlyWhenAlone() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let path = directory.file("events.sqlite.lock").path
        let app = try SidecarFileLock(path: path)
        var widget: SidecarFileLock? = try SidecarFileLock(path: path)
        try app.lock(.shared)
        try widget?.lock(.shared)

        #expect(try app.exclusiveIfAlone() == false)
        #expect(app.mode == .shared)
        #expect(try widget?.exclusiveIfAlone() == false)
        #expect(widget?.mode == .shared)

        widget = nil
        #expect(try app.exclusiveIfAlone() == true)
        #expect(app.mode == .exclusive)
        let opener = try SidecarFileLock(path: path)
        #expect(try opener.lock(.shared, wait: false) == false)
        try app.share()
        #expect(app.mode == .shared)
        #expect(try opener.lock(.shared, wait: false) == true)
        #expect(FileManager.default.fileExists(atPath: path + "-gate"))
    }

    @Test func anUnusableDirectoryThrowsTheFailureWithThePath() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let blocker = directory.file("blocker")
        try Data("a file, not a directory".utf8).write(to: blocker)
        let path = blocker.appendingPathComponent("events.lock").path

        let failure = #expect(throws: SidecarFileLock.Failure.self) {
            _ = try SidecarFileLock(path: path)
        }
        #expect(failure?.operation == "open")
        #expect(failure?.path == path)
        #expect(failure?.code == ENOTDIR)
    }
}
