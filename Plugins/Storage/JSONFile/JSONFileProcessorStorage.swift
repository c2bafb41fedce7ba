public import TelemetryKitFileStorageSupport

/// `ProcessorStorage` in a JSON file per suite, with typed values: the file storage with
/// ``JSONStorageFormat``.
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
public typealias JSONFileProcessorStorage = FileBackedProcessorStorage<JSONStorageFormat>
