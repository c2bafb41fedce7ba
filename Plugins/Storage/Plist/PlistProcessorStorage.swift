public import TelemetryKitFileStorageSupport

/// `ProcessorStorage` in a property-list file per suite, like UserDefaults: the file storage
/// with ``PropertyListStorageFormat``.
///
/// The file is `<directory>/<suiteName>.plist`; by default the directory is the app's
/// application-support directory (`StorageDirectory.applicationSupport(appID:)`: on Linux
/// `$XDG_DATA_HOME/telemetrykit/<appID>/` or `~/.local/share/telemetrykit/<appID>/`).
/// Reads are served from memory; a burst of sets costs one atomic write a moment later, and
/// `flush()` (called by the client at shutdown) writes at once. The file has mode 0600. An
/// unreadable file is moved aside as `<name>.plist.corrupt` and the storage starts empty.
///
/// ```swift
/// let storage = try PlistProcessorStorage(appID: "APP-ID")
/// await storage.set("B", forKey: "ABTest.variant")
/// ```
public typealias PlistProcessorStorage = FileBackedProcessorStorage<PropertyListStorageFormat>
