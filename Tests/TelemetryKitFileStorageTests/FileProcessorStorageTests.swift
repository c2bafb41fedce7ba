import TelemetryKit
import TelemetryKitJSONFileStorage
import TelemetryKitTesting
import Testing

@testable import TelemetryKitFileStorageSupport
@testable import TelemetryKitPlistStorage

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The tests every file-backed storage passes, run for each `StorageKind`.
struct FileProcessorStorageTests {
    // MARK: Conformance

    @Test(arguments: StorageKind.allCases, ProcessorStorageConformance.Check.allCases)
    func conformance(_ kind: StorageKind, _ check: ProcessorStorageConformance.Check) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logger = RecordingLogger()
        try await ProcessorStorageConformance.run(check) { name in
            try kind.makeStorage(directory, suiteName: name, logger: logger)
        }
        #expect(logger.warnings == [])
    }

    // MARK: Files

    @Test(arguments: StorageKind.allCases)
    func theFileIsNamedAfterTheSuiteInTheGivenDirectory(_ kind: StorageKind) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let storage = try kind.makeStorage(directory, suiteName: "com.example.settings")
        #expect(storage.fileURL.path == directory.file("com.example.settings.\(kind.fileExtension)").path)
        #expect(type(of: storage) == kind.storageType)
        #expect(storage.suiteName == "com.example.settings")
        #expect(storage.appID == StorageKind.appID)
    }

    @Test func aStorageOpenedByURLUsesItsFormatsDefaultsAndHasNoSuite() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let plist = try FileBackedProcessorStorage<PropertyListStorageFormat>(fileURL: directory.file("a.plist"))
        let json = try FileBackedProcessorStorage<JSONStorageFormat>(fileURL: directory.file("b.json"))
        await plist.set("v", forKey: "k")
        await json.set(7, forKey: "n")
        await plist.flush()
        await json.flush()

        #expect(plist.suiteName == nil && plist.appID == nil)
        #expect(plist.format.outputFormat == .binary)
        let plistBytes = try Data(contentsOf: directory.file("a.plist"))
        #expect(plistBytes.starts(with: Array("bplist00".utf8)))
        #expect(try PropertyListStorageFormat().decode(plistBytes) == ["k": .string("v")])
        #expect(try JSONStorageFormat().decode(Data(contentsOf: directory.file("b.json"))) == ["n": .integer(7)])
    }

    @Test(arguments: StorageKind.allCases)
    func theFileHasMode0600(_ kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let storage = try kind.makeStorage(directory)
        await storage.store(["user": .string("secret")])
        #expect(permissionBits(of: storage.fileURL) == 0o600)

        // A file left with wider permissions is replaced by a 0600 one on the next write.
        chmod(storage.fileURL.path, 0o644)
        await storage.store(["user": .string("other")])
        #expect(permissionBits(of: storage.fileURL) == 0o600)
    }

    @Test(arguments: StorageKind.allCases)
    func aBurstOfOneThousandSetsCostsOneWrite(_ kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = ManualClock()
        let storage = try kind.makeStorage(directory, clock: clock)
        for index in 0..<1000 {
            await storage.set(index, forKey: "key.\(index % 100)")
            await storage.set("value \(index)", forKey: "string.\(index % 50)")
        }
        #expect(storage.diagnostics.writeCount == 0)
        #expect(storage.diagnostics.hasPendingChanges == true)

        await clock.waitForSleepers(1)
        #expect(clock.sleeperCount == 1)
        clock.advance(by: FileBackedProcessorStorage<JSONStorageFormat>.defaultWriteDelay)
        await storage.lastScheduledWrite?.value
        #expect(storage.diagnostics.writeCount == 1)
        #expect(storage.diagnostics.hasPendingChanges == false)

        await storage.flush()
        #expect(storage.diagnostics.writeCount == 1)

        let reopened = try kind.makeStorage(directory)
        #expect(reopened.keys.count == 150)
        #expect(await reopened.integer(forKey: "key.99") == 999)
        #expect(await reopened.string(forKey: "string.0") == "value 950")
    }

    @Test(arguments: StorageKind.allCases)
    func valuesPersistAcrossTwoInstances(_ kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = try kind.makeStorage(directory)
        await first.store([
            "ABTest.variant": .string("B"),
            "launches": .integer(3),
            "onboarded": .bool(true),
            "token": .data(Data([0xDE, 0xAD])),
        ])

        let second = try kind.makeStorage(directory)
        #expect(await second.string(forKey: "ABTest.variant") == "B")
        #expect(await second.integer(forKey: "launches") == 3)
        #expect(await second.bool(forKey: "onboarded") == true)
        #expect(await second.data(forKey: "token") == Data([0xDE, 0xAD]))

        // Another suite in the same directory is a separate file.
        let otherSuite = try kind.makeStorage(directory, suiteName: "Other")
        #expect(await otherSuite.string(forKey: "ABTest.variant") == nil)
    }

    // MARK: Bad input

    @Test(arguments: StorageKind.brokenContentCases)
    func aBrokenFileIsMovedAsideWithOneWarning(_ kind: StorageKind, _ label: String) async throws {
        let bytes = try #require(kind.brokenContents.first { $0.label == label }?.bytes)
        try await expectRecovery(kind, from: Data(bytes))
    }

    @Test(arguments: StorageKind.allCases)
    func aTruncatedFileIsMovedAsideWithOneWarning(_ kind: StorageKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let storage = try kind.makeStorage(directory)
        for index in 0..<20 {
            await storage.set("value number \(index)", forKey: "key.\(index)")
        }
        await storage.flush()
        let complete = try Data(contentsOf: storage.fileURL)
        try await expectRecovery(kind, from: complete.prefix(complete.count / 2))
    }

    /// Writes `contents` as the storage file and checks the recovery contract.
    private func expectRecovery(
        _ kind: StorageKind,
        from contents: Data,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fileURL = directory.file("TelemetryKit.\(kind.fileExtension)")
        let corruptURL = directory.file("TelemetryKit.\(kind.fileExtension).corrupt")
        try contents.write(to: fileURL)
        let logger = RecordingLogger()

        let storage = try kind.makeStorage(directory, logger: logger)
        #expect(storage.keys == [], sourceLocation: sourceLocation)
        #expect(storage.diagnostics.recoveredFromCorruptFile, sourceLocation: sourceLocation)
        #expect(try Data(contentsOf: corruptURL) == contents, sourceLocation: sourceLocation)
        #expect(FileManager.default.fileExists(atPath: fileURL.path) == false, sourceLocation: sourceLocation)
        #expect(logger.messages(at: .warning).count == 1, sourceLocation: sourceLocation)
        #expect(logger.warnings.first?.contains(fileURL.path) == true, sourceLocation: sourceLocation)
        #expect(logger.warnings.first?.contains(corruptURL.path) == true, sourceLocation: sourceLocation)

        // The storage works normally afterwards, and the next instance reads it without warning.
        await storage.set("fresh", forKey: "key")
        await storage.flush()
        let nextLogger = RecordingLogger()
        let reopened = try kind.makeStorage(directory, logger: nextLogger)
        #expect(await reopened.string(forKey: "key") == "fresh", sourceLocation: sourceLocation)
        #expect(nextLogger.warnings == [], sourceLocation: sourceLocation)
        #expect(logger.warnings.count == 1, sourceLocation: sourceLocation)
    }

    @Test(arguments: StorageKind.allCases)
    func anUnwritableDirectoryIsATypedErrorWithThePath(_ kind: StorageKind) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // A regular file in the way: no directory can be created below it, not even by root.
        let blocker = directory.file("not-a-directory")
        try Data("x".utf8).write(to: blocker)
        let target = blocker.appendingPathComponent("storage", isDirectory: true)
        let error = try #require(throws: FileStorageError.self, "expected FileStorageError.directoryNotWritable") {
            try kind.make(directory: target, logger: RecordingLogger())
        }
        guard case .directoryNotWritable(let path, _) = error else {
            Issue.record("unexpected error \(error)")
            return
        }
        #expect(path == target.path)
        #expect(error.path == target.path)
        #expect(error.description.contains(target.path))
    }

    @Test(.enabled(if: geteuid() != 0, "root may write into read-only directories"), arguments: StorageKind.allCases)
    func aReadOnlyDirectoryIsATypedErrorWithThePath(_ kind: StorageKind) throws {
        let directory = try TemporaryDirectory()
        defer {
            chmod(directory.url.path, 0o700)
            directory.remove()
        }
        chmod(directory.url.path, 0o500)
        #expect(throws: FileStorageError.self) {
            try kind.make(directory: directory.url)
        }
        do {
            _ = try kind.make(directory: directory.url)
        } catch {
            #expect(error.description.contains(directory.url.path))
        }
    }

    @Test(arguments: StorageKind.allCases, ["", "..", "a/b"])
    func anInvalidSuiteNameIsATypedError(_ kind: StorageKind, _ name: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        #expect(throws: FileStorageError.invalidName(name)) {
            try kind.make(directory: directory.url, suiteName: name)
        }
    }
}
