import Foundation
import TelemetryKit
import TelemetryKitTesting
import Testing

@testable import TelemetryKitFileStorageSupport

/// An app and its extensions (or several server workers) share one storage file. Each write
/// merges the keys its storage changed into the file as it is now, so nobody overwrites
/// another's keys from a stale copy.
struct MultiProcessStorageTests {
    @Test(arguments: StorageKind.allCases)
    func twoStoragesOnOneFileKeepEachOthersKeys(_ kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let app = try kind.makeStorage(directory)
        let widget = try kind.makeStorage(directory)

        await app.set("app-user", forKey: "defaultUserIdentifier")
        await widget.set(7, forKey: "widget.refreshCount")
        await app.flush()
        await widget.flush()  // read the file with the app's key, then added its own

        let reopened = try kind.makeStorage(directory)
        #expect(await reopened.string(forKey: "defaultUserIdentifier") == "app-user")
        #expect(await reopened.integer(forKey: "widget.refreshCount") == 7)
        // The widget's write adopted the app's key; the app adopts the widget's on its next.
        #expect(await widget.string(forKey: "defaultUserIdentifier") == "app-user")
        await app.set(true, forKey: "app.onboarded")
        await app.flush()
        #expect(await app.integer(forKey: "widget.refreshCount") == 7)
        #expect(await reopened.bool(forKey: "app.onboarded") == false)  // read at open only
    }

    @Test(arguments: StorageKind.allCases)
    func aRemovalReachesTheFileAndAnotherStoragesNewerValueWins(_ kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = try kind.makeStorage(directory)
        await first.set("a", forKey: "shared")
        await first.set("x", forKey: "temporary")
        await first.flush()

        let second = try kind.makeStorage(directory)
        await second.set("b", forKey: "shared")
        await second.flush()
        await first.set(nil as String?, forKey: "temporary")
        await first.flush()

        let reopened = try kind.makeStorage(directory)
        #expect(await reopened.string(forKey: "shared") == "b")
        #expect(await reopened.string(forKey: "temporary") == nil)
        #expect(await first.string(forKey: "shared") == "b")
    }

    /// Real processes, each flushing after every key, on one file at once: every key of every
    /// process is in the file at the end, and the file is never torn.
    @Test(arguments: StorageKind.allCases)
    func concurrentProcessesLoseNoKeys(_ kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let (url, searched) = TestExecutable.locate("telemetrykit-storage-writer")
        let writer = try #require(url, "telemetrykit-storage-writer not found; searched \(searched)")
        let perProcess = 150
        let prefixes = ["app", "widget", "share"]

        let processes = try prefixes.map { prefix in
            let process = Process()
            process.executableURL = writer
            process.arguments = [kind.fileExtension, directory.url.path, prefix, String(perProcess)]
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            return process
        }
        for process in processes {
            while process.isRunning {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(process.terminationStatus == 0)
        }

        let logger = RecordingLogger()
        let merged = try kind.makeStorage(directory, logger: logger)
        #expect(logger.warnings == [])  // neither torn nor moved aside
        #expect(merged.diagnostics.recoveredFromCorruptFile == false)
        var missing: [String] = []
        for prefix in prefixes {
            for index in 0..<perProcess where await merged.integer(forKey: "\(prefix).\(index)") != index {
                missing.append("\(prefix).\(index)")
            }
        }
        #expect(missing == [])
        #expect(merged.keys.count == prefixes.count * perProcess)
    }
}
