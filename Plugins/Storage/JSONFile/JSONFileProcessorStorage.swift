public import TelemetryKit
public import TelemetryKitFileStorageSupport

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// `ProcessorStorage` in a JSON file per suite, with typed values (see `JSONStorageFormat`).
///
/// The file is `<directory>/<suiteName>.json`; by default the directory is the app's
/// application-support directory (`StorageDirectory.applicationSupport(appID:)`: on Linux
/// `$XDG_DATA_HOME/telemetrykit/<appID>/` or `~/.local/share/telemetrykit/<appID>/`).
/// Reads are served from memory; a burst of sets costs one atomic write a moment later, and
/// `flush()` (called by the client at shutdown) writes at once. The file has mode 0600. An
/// unreadable file is moved aside as `<name>.json.corrupt` and the storage starts empty.
///
/// ```swift
/// let storage = try JSONFileProcessorStorage(appID: "APP-ID")
/// await storage.set("B", forKey: "ABTest.variant")
/// ```
public final class JSONFileProcessorStorage: FileBackedStorageFront {
    /// The name of the file, without extension.
    public let suiteName: String
    /// The app the storage belongs to.
    public let appID: String
    /// The storage doing the work.
    public let backing: FileBackedProcessorStorage

    /// Opens the suite's file, creating its directory if needed.
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
        self.suiteName = suiteName
        self.appID = appID
        backing = try FileBackedProcessorStorage(
            suiteName: suiteName,
            appID: appID,
            directory: directory,
            format: JSONStorageFormat(),
            logger: logger,
            writeDelay: writeDelay,
            clock: clock
        )
    }
}
