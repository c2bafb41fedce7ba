public import TelemetryKit

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A named storage type in front of a ``FileBackedProcessorStorage`` with a fixed file
/// format (`PlistProcessorStorage`, `JSONFileProcessorStorage`): conforming types name
/// their format and keep what they are made with; opening the file, every
/// `ProcessorStorage` operation and the inspection properties are provided here.
public protocol FileBackedStorageFront: ProcessorStorage {
    /// The file format of this storage type.
    static var format: any ProcessorStorageFileFormat { get }

    /// The name of the file, without extension.
    var suiteName: String { get }
    /// The app the storage belongs to.
    var appID: String { get }
    /// The storage doing the work.
    var backing: FileBackedProcessorStorage { get }

    /// Wraps `backing`, already opened for `suiteName` of `appID`.
    init(suiteName: String, appID: String, backing: FileBackedProcessorStorage)
}

extension FileBackedStorageFront {
    /// Opens the suite's file, `<directory>/<suiteName>.<format extension>`, creating its
    /// directory if needed.
    ///
    /// - Parameters:
    ///   - suiteName: The file name without extension (default `"TelemetryKit"`); one path
    ///     component.
    ///   - appID: The app whose directory holds the file; one path component.
    ///   - directory: The directory for the file, instead of the app's default one.
    ///   - logger: Receives the corrupt-file warning and write errors.
    ///   - writeDelay: How long changes are collected before one write.
    ///   - clock: The clock the write delay runs on.
    /// - Throws: `FileStorageError` (invalid name, directory not writable, file unreadable),
    ///   with the path in its description.
    public init(
        suiteName: String = "TelemetryKit",
        appID: String,
        directory: URL? = nil,
        logger: any Logging = StandardErrorLogger(),
        writeDelay: TimeInterval = FileBackedProcessorStorage.defaultWriteDelay,
        clock: any TelemetryClock = SystemClock()
    ) throws(FileStorageError) {
        let backing = try FileBackedProcessorStorage(
            suiteName: suiteName,
            appID: appID,
            directory: directory,
            format: Self.format,
            logger: logger,
            writeDelay: writeDelay,
            clock: clock
        )
        self.init(suiteName: suiteName, appID: appID, backing: backing)
    }

    /// The storage's file.
    public var fileURL: URL { backing.fileURL }

    /// Write counters and state, for tests and debugging.
    public var diagnostics: FileStorageDiagnostics { backing.diagnostics }

    /// The stored keys, for tests and debugging.
    public var keys: [String] { backing.keys }

    public func data(forKey key: String) async -> Data? { await backing.data(forKey: key) }
    public func string(forKey key: String) async -> String? { await backing.string(forKey: key) }
    public func integer(forKey key: String) async -> Int { await backing.integer(forKey: key) }
    public func bool(forKey key: String) async -> Bool { await backing.bool(forKey: key) }

    public func set(_ value: Data?, forKey key: String) async { await backing.set(value, forKey: key) }
    public func set(_ value: String?, forKey key: String) async { await backing.set(value, forKey: key) }
    public func set(_ value: Int, forKey key: String) async { await backing.set(value, forKey: key) }
    public func set(_ value: Bool, forKey key: String) async { await backing.set(value, forKey: key) }

    public func removeValue(forKey key: String) async { await backing.removeValue(forKey: key) }

    public func flush() async { await backing.flush() }
}
