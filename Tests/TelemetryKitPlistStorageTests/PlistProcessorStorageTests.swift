import TelemetryKit
import TelemetryKitTesting
import Testing

@testable import TelemetryKitFileStorageSupport
@testable import TelemetryKitPlistStorage

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

struct PlistProcessorStorageTests {
    static let appID = "APP-ID"

    static func makeStorage(
        _ directory: TemporaryDirectory,
        suiteName: String = "TelemetryKit",
        logger: any Logging = RecordingLogger(),
        clock: ManualClock = ManualClock()
    ) throws -> PlistProcessorStorage {
        try PlistProcessorStorage(
            suiteName: suiteName,
            appID: appID,
            directory: directory.url,
            logger: logger,
            clock: clock
        )
    }

    // MARK: Conformance

    @Test(arguments: ProcessorStorageConformance.Check.allCases)
    func conformance(_ check: ProcessorStorageConformance.Check) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logger = RecordingLogger()
        try await ProcessorStorageConformance.run(check) { name in
            try Self.makeStorage(directory, suiteName: name, logger: logger)
        }
        #expect(logger.warnings == [])
    }

    // MARK: Files

    @Test func theFileIsNamedAfterTheSuiteInTheGivenDirectory() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let storage = try Self.makeStorage(directory, suiteName: "com.example.settings")
        #expect(storage.fileURL.path == directory.file("com.example.settings.plist").path)
        #expect(storage.suiteName == "com.example.settings")
        #expect(storage.appID == Self.appID)
    }

    @Test func theFileHasMode0600() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let storage = try Self.makeStorage(directory)
        await storage.set("secret", forKey: "user")
        await storage.flush()
        #expect(permissionBits(of: storage.fileURL) == 0o600)

        // A file left with wider permissions is replaced by a 0600 one on the next write.
        chmod(storage.fileURL.path, 0o644)
        await storage.set("other", forKey: "user")
        await storage.flush()
        #expect(permissionBits(of: storage.fileURL) == 0o600)
    }

    @Test func aBurstOfOneThousandSetsCostsOneWrite() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let clock = ManualClock()
        let storage = try Self.makeStorage(directory, clock: clock)
        for index in 0..<1000 {
            await storage.set(index, forKey: "key.\(index % 100)")
            await storage.set("value \(index)", forKey: "string.\(index % 50)")
        }
        #expect(storage.diagnostics.writeCount == 0)
        #expect(storage.diagnostics.hasPendingChanges == true)

        await clock.waitForSleepers(1)
        #expect(clock.sleeperCount == 1)
        clock.advance(by: FileBackedProcessorStorage.defaultWriteDelay)
        await storage.backing.lastScheduledWrite?.value
        #expect(storage.diagnostics.writeCount == 1)
        #expect(storage.diagnostics.hasPendingChanges == false)

        await storage.flush()
        #expect(storage.diagnostics.writeCount == 1)

        let reopened = try Self.makeStorage(directory)
        #expect(reopened.keys.count == 150)
        #expect(await reopened.integer(forKey: "key.99") == 999)
        #expect(await reopened.string(forKey: "string.0") == "value 950")
    }

    @Test func valuesPersistAcrossTwoInstances() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let first = try Self.makeStorage(directory)
        await first.set("B", forKey: "ABTest.variant")
        await first.set(3, forKey: "launches")
        await first.set(true, forKey: "onboarded")
        await first.set(Data([0xDE, 0xAD]), forKey: "token")
        await first.flush()

        let second = try Self.makeStorage(directory)
        #expect(await second.string(forKey: "ABTest.variant") == "B")
        #expect(await second.integer(forKey: "launches") == 3)
        #expect(await second.bool(forKey: "onboarded") == true)
        #expect(await second.data(forKey: "token") == Data([0xDE, 0xAD]))

        // Another suite in the same directory is a separate file.
        let otherSuite = try Self.makeStorage(directory, suiteName: "Other")
        #expect(await otherSuite.string(forKey: "ABTest.variant") == nil)
    }

    @Test func theFileIsAPlainPropertyListDictionary() async throws {
        struct Contents: Decodable, Equatable {
            var name: String
            var count: Int
            var enabled: Bool
            var blob: Data
        }
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let storage = try Self.makeStorage(directory)
        await storage.set("Ada", forKey: "name")
        await storage.set(12, forKey: "count")
        await storage.set(false, forKey: "enabled")
        await storage.set(Data([1, 2, 3]), forKey: "blob")
        await storage.flush()

        let bytes = try Data(contentsOf: storage.fileURL)
        #expect(bytes.starts(with: Data("bplist00".utf8)))
        var format = PropertyListDecoder.PropertyListFormat.xml
        let decoded = try PropertyListDecoder().decode(Contents.self, from: bytes, format: &format)
        #expect(decoded == Contents(name: "Ada", count: 12, enabled: false, blob: Data([1, 2, 3])))
        #expect(format == .binary)
    }

    @Test func anXMLPropertyListWrittenElsewhereIsRead() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
                <key>flag</key><true/>
                <key>one</key><integer>1</integer>
                <key>text</key><string>1</string>
                <key>bytes</key><data>AAEC</data>
            </dict>
            </plist>
            """
        try Data(xml.utf8).write(to: directory.file("TelemetryKit.plist"))
        let storage = try Self.makeStorage(directory)
        #expect(await storage.bool(forKey: "flag") == true)
        #expect(await storage.integer(forKey: "flag") == nil)
        #expect(await storage.integer(forKey: "one") == 1)
        #expect(await storage.bool(forKey: "one") == nil)
        #expect(await storage.string(forKey: "text") == "1")
        #expect(await storage.integer(forKey: "text") == nil)
        #expect(await storage.data(forKey: "bytes") == Data([0, 1, 2]))
        #expect(await storage.string(forKey: "bytes") == nil)
    }

    // MARK: Bad input

    static let brokenContents: [(label: String, bytes: [UInt8])] = [
        ("garbage", Array("this is not a property list \u{0}\u{1}\u{2}".utf8)),
        ("empty file", []),
        ("binary header only", Array("bplist00".utf8)),
        ("array at the top", Array(#"<plist version="1.0"><array><string>a</string></array></plist>"#.utf8)),
        (
            "unsupported value type",
            Array(#"<plist version="1.0"><dict><key>k</key><real>1.5</real></dict></plist>"#.utf8)
        ),
    ]

    @Test(arguments: brokenContents.map(\.label))
    func aBrokenFileIsMovedAsideWithOneWarning(_ label: String) async throws {
        let bytes = try #require(Self.brokenContents.first { $0.label == label }?.bytes)
        try await expectRecovery(from: Data(bytes))
    }

    @Test func aTruncatedFileIsMovedAsideWithOneWarning() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let storage = try Self.makeStorage(directory)
        for index in 0..<20 {
            await storage.set("value number \(index)", forKey: "key.\(index)")
        }
        await storage.flush()
        let complete = try Data(contentsOf: storage.fileURL)
        try await expectRecovery(from: complete.prefix(complete.count / 2))
    }

    /// Writes `contents` as the storage file and checks the recovery contract.
    private func expectRecovery(from contents: Data, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let fileURL = directory.file("TelemetryKit.plist")
        let corruptURL = directory.file("TelemetryKit.plist.corrupt")
        try contents.write(to: fileURL)
        let logger = RecordingLogger()

        let storage = try Self.makeStorage(directory, logger: logger)
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
        let reopened = try Self.makeStorage(directory, logger: nextLogger)
        #expect(await reopened.string(forKey: "key") == "fresh", sourceLocation: sourceLocation)
        #expect(nextLogger.warnings == [], sourceLocation: sourceLocation)
        #expect(logger.warnings.count == 1, sourceLocation: sourceLocation)
    }

    @Test func anUnwritableDirectoryIsATypedErrorWithThePath() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // A regular file in the way: no directory can be created below it, not even by root.
        let blocker = directory.file("not-a-directory")
        try Data("x".utf8).write(to: blocker)
        let target = blocker.appendingPathComponent("storage", isDirectory: true)
        do {
            _ = try PlistProcessorStorage(appID: Self.appID, directory: target, logger: RecordingLogger())
            Issue.record("expected FileStorageError.directoryNotWritable")
        } catch {
            guard case .directoryNotWritable(let path, _) = error else {
                Issue.record("unexpected error \(error)")
                return
            }
            #expect(path == target.path)
            #expect(error.path == target.path)
            #expect(error.description.contains(target.path))
        }
    }

    @Test(.enabled(if: geteuid() != 0, "root may write into read-only directories"))
    func aReadOnlyDirectoryIsATypedErrorWithThePath() throws {
        let directory = try TemporaryDirectory()
        defer {
            chmod(directory.url.path, 0o700)
            directory.remove()
        }
        chmod(directory.url.path, 0o500)
        #expect(throws: FileStorageError.self) {
            try PlistProcessorStorage(appID: Self.appID, directory: directory.url)
        }
        do {
            _ = try PlistProcessorStorage(appID: Self.appID, directory: directory.url)
        } catch {
            #expect(error.description.contains(directory.url.path))
        }
    }

    @Test(arguments: ["", "..", "a/b"])
    func anInvalidSuiteNameIsATypedError(_ name: String) throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        #expect(throws: FileStorageError.invalidName(name)) {
            try PlistProcessorStorage(suiteName: name, appID: Self.appID, directory: directory.url)
        }
    }
}
