#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Where file-backed storages live by default, and which names may become file names.
public enum StorageDirectory {
    /// The per-app directory for storage files in the platform's application-support place.
    ///
    /// - Apple platforms: `<Application Support>/<appID>/`.
    /// - Elsewhere (Linux): `$XDG_DATA_HOME/telemetrykit/<appID>/`, or
    ///   `~/.local/share/telemetrykit/<appID>/` when `XDG_DATA_HOME` is unset or not absolute
    ///   (as the XDG base directory specification says).
    ///
    /// The directory is not created here; the storage creates it on first use.
    public static func applicationSupport(appID: String) throws(FileStorageError) -> URL {
        try validateComponent(appID)
        #if canImport(Darwin)
        guard let base = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
        else {
            throw .noDataDirectory(reason: "the system reports no application support directory")
        }
        return base.appendingPathComponent(appID, isDirectory: true)
        #else
        let environment = ProcessInfo.processInfo.environment
        return try xdgDataDirectory(
            appID: appID,
            environment: environment,
            home: environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
        )
        #endif
    }

    /// The XDG location for `appID`, computed from an explicit environment (testable without
    /// touching the process environment).
    static func xdgDataDirectory(
        appID: String,
        environment: [String: String],
        home: String?
    ) throws(FileStorageError) -> URL {
        try validateComponent(appID)
        let base: URL
        if let dataHome = environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
            base = URL(fileURLWithPath: dataHome, isDirectory: true)
        } else if let home, home.hasPrefix("/") {
            base = URL(fileURLWithPath: home, isDirectory: true)
                .appendingPathComponent(".local", isDirectory: true)
                .appendingPathComponent("share", isDirectory: true)
        } else {
            throw .noDataDirectory(reason: "neither XDG_DATA_HOME nor HOME is an absolute path")
        }
        return base.appendingPathComponent("telemetrykit", isDirectory: true)
            .appendingPathComponent(appID, isDirectory: true)
    }

    /// Checks that `name` is usable as exactly one path component.
    ///
    /// Names are rejected rather than rewritten, so that two different suites never share a
    /// file.
    public static func validateComponent(_ name: String) throws(FileStorageError) {
        if name.isEmpty || name == "." || name == ".." || name.contains("/") || name.contains("\u{0}") {
            throw .invalidName(name)
        }
    }
}
