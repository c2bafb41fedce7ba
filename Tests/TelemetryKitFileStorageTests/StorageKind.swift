import TelemetryKit
import TelemetryKitTesting
import Testing

@testable import TelemetryKitFileStorageSupport
@testable import TelemetryKitJSONFileStorage
@testable import TelemetryKitPlistStorage

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the shared tests use of a file storage, whatever its format.
protocol FileStorageUnderTest: ProcessorStorage {
    var fileURL: URL { get }
    var diagnostics: FileStorageDiagnostics { get }
    var keys: [String] { get }
    var suiteName: String? { get }
    var appID: String? { get }
    var lastScheduledWrite: Task<Void, Never>? { get }
}

extension FileBackedProcessorStorage: FileStorageUnderTest {}

/// The file-backed storages the shared tests run against.
enum StorageKind: CaseIterable, Sendable, CustomTestStringConvertible {
    /// `PlistProcessorStorage`.
    case plist
    /// `JSONFileProcessorStorage`.
    case json

    /// The app ID every test storage belongs to.
    static let appID = "APP-ID"

    var testDescription: String {
        switch self {
        case .plist: "PlistProcessorStorage"
        case .json: "JSONFileProcessorStorage"
        }
    }

    /// The extension of the storage's file, without the dot.
    var fileExtension: String {
        switch self {
        case .plist: "plist"
        case .json: "json"
        }
    }

    /// The storage type.
    var storageType: any FileStorageUnderTest.Type {
        switch self {
        case .plist: PlistProcessorStorage.self
        case .json: JSONFileProcessorStorage.self
        }
    }

    /// A storage of this kind for `appID`, with the initializers' own defaults.
    func make(
        directory: URL,
        suiteName: String = "TelemetryKit",
        logger: any Logging = StandardErrorLogger(),
        clock: any TelemetryClock = SystemClock()
    ) throws(FileStorageError) -> any FileStorageUnderTest {
        func open<Format>(_: Format.Type) throws(FileStorageError) -> FileBackedProcessorStorage<Format> {
            try FileBackedProcessorStorage<Format>(
                suiteName: suiteName,
                appID: Self.appID,
                directory: directory,
                logger: logger,
                clock: clock
            )
        }
        switch self {
        case .plist: return try open(PropertyListStorageFormat.self)
        case .json: return try open(JSONStorageFormat.self)
        }
    }

    /// A storage of this kind in `directory`, with the tests' defaults: a recording logger
    /// and a manual clock.
    func makeStorage(
        _ directory: TemporaryDirectory,
        suiteName: String = "TelemetryKit",
        logger: any Logging = RecordingLogger(),
        clock: ManualClock = ManualClock()
    ) throws -> any FileStorageUnderTest {
        try make(directory: directory.url, suiteName: suiteName, logger: logger, clock: clock)
    }

    /// Contents the storage cannot read: each is moved aside when the storage opens.
    var brokenContents: [(label: String, bytes: [UInt8])] {
        switch self {
        case .plist:
            [
                ("garbage", Array("this is not a property list \u{0}\u{1}\u{2}".utf8)),
                ("empty file", []),
                ("binary header only", Array("bplist00".utf8)),
                ("array at the top", Array(#"<plist version="1.0"><array><string>a</string></array></plist>"#.utf8)),
                (
                    "unsupported value type",
                    Array(#"<plist version="1.0"><dict><key>k</key><real>1.5</real></dict></plist>"#.utf8)
                ),
            ]
        case .json:
            [
                ("garbage", Array("this is not JSON \u{0}\u{1}\u{2}".utf8)),
                ("empty file", []),
                ("array at the top", Array("[1, 2, 3]".utf8)),
                ("unknown version", Array(#"{"version":2,"values":{}}"#.utf8)),
                ("missing type tag", Array(#"{"version":1,"values":{"k":{"value":1}}}"#.utf8)),
                (
                    "value of another type than its tag",
                    Array(#"{"version":1,"values":{"k":{"type":"int","value":true}}}"#.utf8)
                ),
                ("unknown type tag", Array(#"{"version":1,"values":{"k":{"type":"double","value":1.5}}}"#.utf8)),
                ("invalid base64", Array(#"{"version":1,"values":{"k":{"type":"data","value":"%%%"}}}"#.utf8)),
            ]
        }
    }

    /// Every kind with each label of its broken contents, as test arguments.
    static let brokenContentCases: [(StorageKind, String)] = allCases.flatMap { kind in
        kind.brokenContents.map { (kind, $0.label) }
    }
}

extension FileStorageUnderTest {
    /// Sets each value with the setter of its type, in order, then flushes.
    func store(_ values: KeyValuePairs<String, StoredValue>) async {
        for (key, value) in values {
            switch value {
            case .data(let data): await set(data, forKey: key)
            case .string(let string): await set(string, forKey: key)
            case .integer(let integer): await set(integer, forKey: key)
            case .bool(let bool): await set(bool, forKey: key)
            }
        }
        await flush()
    }

    /// Checks the values both formats' "file written elsewhere" samples hold, each read only
    /// as its own type: `flag` true, `one` 1, `text` "1" and `bytes` 0, 1, 2.
    func expectValuesWrittenElsewhere(sourceLocation: SourceLocation = #_sourceLocation) async {
        #expect(await bool(forKey: "flag") == true, sourceLocation: sourceLocation)
        #expect(await integer(forKey: "flag") == 0, sourceLocation: sourceLocation)
        #expect(await integer(forKey: "one") == 1, sourceLocation: sourceLocation)
        #expect(await bool(forKey: "one") == false, sourceLocation: sourceLocation)
        #expect(await string(forKey: "text") == "1", sourceLocation: sourceLocation)
        #expect(await integer(forKey: "text") == 0, sourceLocation: sourceLocation)
        #expect(await data(forKey: "bytes") == Data([0, 1, 2]), sourceLocation: sourceLocation)
        #expect(await string(forKey: "bytes") == nil, sourceLocation: sourceLocation)
    }
}
