import TelemetryKit
import TelemetryKitTesting
import Testing

@testable import TelemetryKitFileStorageSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A minimal format for the engine's tests: strings only, as a JSON object.
private struct StringsFormat: ProcessorStorageFileFormat {
    struct UnsupportedValue: Error {}

    var fileExtension: String { "strings" }

    func encode(_ values: [String: StoredValue]) throws -> Data {
        let strings = try values.mapValues { value -> String in
            guard case .string(let string) = value else { throw UnsupportedValue() }
            return string
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try encoder.encode(strings)
    }

    func decode(_ data: Data) throws -> [String: StoredValue] {
        try JSONDecoder().decode([String: String].self, from: data).mapValues(StoredValue.string)
    }
}

/// A storage of `values.strings` in `directory`, on a manual clock.
private func stringsStorage(in directory: URL) throws -> FileBackedProcessorStorage<StringsFormat> {
    try FileBackedProcessorStorage(
        fileURL: directory.appendingPathComponent("values.strings"),
        format: StringsFormat(),
        clock: ManualClock()
    )
}

struct FileBackedProcessorStorageTests {
    @Test func writesTheFormatsBytesAfterTheDelay() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = ManualClock()
        let storage = try FileBackedProcessorStorage(
            fileURL: directory.file("values.strings"),
            format: StringsFormat(),
            logger: RecordingLogger(),
            writeDelay: 2,
            clock: clock
        )
        await storage.set("1", forKey: "b")
        await storage.set("2", forKey: "a")
        #expect(FileManager.default.fileExists(atPath: directory.file("values.strings").path) == false)

        await clock.waitForSleepers(1)
        #expect(clock.sleepHistory == [2])
        clock.advance(by: 2)
        await storage.lastScheduledWrite?.value

        let contents = try Data(contentsOf: directory.file("values.strings"))
        #expect(String(decoding: contents, as: UTF8.self) == #"{"a":"2","b":"1"}"#)
        #expect(storage.diagnostics.writeCount == 1)
        #expect(storage.diagnostics.hasPendingChanges == false)
    }

    @Test func flushCancelsTheScheduledWriteAndWritesOnce() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = ManualClock()
        let storage = try FileBackedProcessorStorage(
            fileURL: directory.file("values.strings"),
            format: StringsFormat(),
            writeDelay: 1,
            clock: clock
        )
        await storage.set("x", forKey: "key")
        await clock.waitForSleepers(1)

        await storage.flush()
        await storage.lastScheduledWrite?.value
        #expect(clock.sleeperCount == 0)
        #expect(storage.diagnostics.writeCount == 1)

        // The next change schedules a new write, which the clock then triggers.
        await storage.set("y", forKey: "key")
        await clock.waitForSleepers(1)
        clock.advance(by: 1)
        await storage.lastScheduledWrite?.value
        #expect(storage.diagnostics.writeCount == 2)
        #expect(try Data(contentsOf: storage.fileURL) == Data(#"{"key":"y"}"#.utf8))
    }

    @Test func settingTheSameValueAgainCostsNoWrite() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = ManualClock()
        let storage = try FileBackedProcessorStorage(
            fileURL: directory.file("values.strings"),
            format: StringsFormat(),
            clock: clock
        )
        await storage.set("same", forKey: "key")
        await storage.flush()
        await storage.set("same", forKey: "key")
        await storage.removeValue(forKey: "never-set")
        #expect(storage.diagnostics.hasPendingChanges == false)
        #expect(clock.sleeperCount == 0)
        await storage.flush()
        #expect(storage.diagnostics.writeCount == 1)
    }

    @Test func aFailedWriteIsLoggedKeptPendingAndRetried() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logger = RecordingLogger()
        let storageDirectory = directory.url.appendingPathComponent("storage", isDirectory: true)
        let storage = try FileBackedProcessorStorage(
            fileURL: storageDirectory.appendingPathComponent("values.strings"),
            format: StringsFormat(),
            logger: logger,
            clock: ManualClock()
        )
        await storage.set("kept", forKey: "key")
        try FileManager.default.removeItem(at: storageDirectory)

        await storage.flush()
        #expect(storage.diagnostics.failedWriteCount == 1)
        #expect(storage.diagnostics.writeCount == 0)
        #expect(storage.diagnostics.hasPendingChanges == true)
        #expect(logger.messages(at: .error).count == 1)
        #expect(logger.messages(at: .error).first?.contains(storage.fileURL.path) == true)
        #expect(await storage.string(forKey: "key") == "kept")

        try FileManager.default.createDirectory(at: storageDirectory, withIntermediateDirectories: true)
        await storage.flush()
        #expect(storage.diagnostics.writeCount == 1)
        #expect(storage.diagnostics.hasPendingChanges == false)
        #expect(try Data(contentsOf: storage.fileURL) == Data(#"{"key":"kept"}"#.utf8))
    }

    @Test func aFormatErrorIsLoggedAndTheFileKept() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logger = RecordingLogger()
        let storage = try FileBackedProcessorStorage(
            fileURL: directory.file("values.strings"),
            format: StringsFormat(),
            logger: logger,
            clock: ManualClock()
        )
        await storage.set("text", forKey: "text")
        await storage.flush()
        await storage.set(5, forKey: "number")  // StringsFormat cannot encode it.
        await storage.flush()
        #expect(storage.diagnostics.failedWriteCount == 1)
        #expect(logger.messages(at: .error).count == 1)
        #expect(try Data(contentsOf: storage.fileURL) == Data(#"{"text":"text"}"#.utf8))
    }

    @Test func keepsAnExistingDirectoryAndItsPermissions() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let existing = directory.url.appendingPathComponent("shared", isDirectory: true)
        try FileManager.default.createDirectory(at: existing, withIntermediateDirectories: false)
        chmod(existing.path, 0o750)
        let storage = try stringsStorage(in: existing)
        await storage.set("v", forKey: "k")
        await storage.flush()
        #expect(permissionBits(of: existing) == 0o750)
        #expect(try Data(contentsOf: storage.fileURL) == Data(#"{"k":"v"}"#.utf8))
    }

    @Test func aFileWhereItsDirectoryShouldBeIsATypedError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let blocker = directory.file("storage")
        try Data("x".utf8).write(to: blocker)
        let error = try #require(throws: FileStorageError.self) {
            try stringsStorage(in: blocker)
        }
        guard case .directoryNotWritable(let path, _) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(path == blocker.path)
        // The file in the way is left as it was.
        #expect(try Data(contentsOf: blocker) == Data("x".utf8))
    }

    /// "child": only the storage's own directory is missing (made with `mkdir`); "a/b/c": its
    /// parents too (made by FileManager).
    @Test(arguments: ["child", "a/b/c"])
    func createsMissingDirectoriesWithOwnerOnlyAccess(_ relativePath: String) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let nested = directory.url.appendingPathComponent(relativePath, isDirectory: true)
        let storage = try stringsStorage(in: nested)
        await storage.set("v", forKey: "k")
        await storage.flush()
        #expect(permissionBits(of: nested) == 0o700)
        #expect(permissionBits(of: storage.fileURL) == 0o600)
        // No temporary or probe files are left behind; the lock file that orders writers of
        // several processes stays (empty, owner-only).
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: nested.path).sorted() == [
                "values.strings", "values.strings.lock",
            ]
        )
        #expect(permissionBits(of: nested.appendingPathComponent("values.strings.lock")) == 0o600)
    }

    @Test func anUnreadableFileIsATypedError() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // A directory where the file should be cannot be read as a file.
        let fileURL = directory.file("values.strings")
        try FileManager.default.createDirectory(at: fileURL, withIntermediateDirectories: true)
        do {
            _ = try FileBackedProcessorStorage(fileURL: fileURL, format: StringsFormat(), clock: ManualClock())
            Issue.record("expected an error")
        } catch {
            guard case .fileNotReadable(let path, _) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(path == fileURL.path)
            #expect(error.description.contains(fileURL.path))
        }
    }
}
