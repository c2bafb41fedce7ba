#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Small persistent key-value storage for processors, shaped like `UserDefaults`.
///
/// The requirements are TelemetryDeck v3's, so a storage written for v3 conforms unchanged:
/// `Data` and `String` reads return `nil` when the key is missing or holds another type;
/// `integer` and `bool` reads return `0` and `false` then, as `UserDefaults` does. Setting
/// `nil` removes a `Data` or `String` value.
///
/// ```swift
/// let launches = await storage.integer(forKey: "launchCount") + 1
/// await storage.set(launches, forKey: "launchCount")
/// ```
///
/// ## Implementation requirements
/// - Safe to call from any task; a value set is visible to the next get at once, even if
///   the backend writes to disk later.
/// - Never crash on unreadable persisted data: start empty and log.
/// - `removeValue(forKey:)` and `flush()` have defaults (remove through `set(nil)`, nothing to
///   flush); a backend that writes lazily implements `flush()` so the client can persist
///   everything at shutdown.
/// - `removeAll()` erases every value, also those other processes sharing the backend wrote;
///   `flush()` afterwards puts the erasure on disk. It has no default that could work (the
///   protocol cannot list keys): the default throws ``ProcessorStorageError``, so that
///   `Telemetry.removeAllData()` reports a storage it could not erase instead of claiming it did.
public protocol ProcessorStorage: Sendable {
    func data(forKey key: String) async -> Data?
    /// Stores `data`; `nil` removes the value.
    func set(_ data: Data?, forKey key: String) async
    func string(forKey key: String) async -> String?
    /// Stores `value`; `nil` removes the value.
    func set(_ value: String?, forKey key: String) async
    /// The integer for `key`, or `0` when there is none.
    func integer(forKey key: String) async -> Int
    func set(_ value: Int, forKey key: String) async
    /// The Boolean for `key`, or `false` when there is none.
    func bool(forKey key: String) async -> Bool
    func set(_ value: Bool, forKey key: String) async
    /// A string array, for data written by the TelemetryDeck v2 SDK. Default: `nil`.
    func stringArray(forKey key: String) async -> [String]?

    /// Removes the value for `key`, whatever its type. Default: `set(nil as Data?, forKey:)`.
    func removeValue(forKey key: String) async
    /// Writes pending changes to durable storage. Default: nothing to do.
    func flush() async
    /// Erases every value (the user asked for their data to be removed). Default: throws,
    /// erasing nothing.
    func removeAll() async throws
}

/// A storage could not do what was asked (see ``ProcessorStorage/removeAll()``).
public struct ProcessorStorageError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}

extension ProcessorStorage {
    public func stringArray(forKey key: String) async -> [String]? { nil }
    public func removeValue(forKey key: String) async { await set(nil as Data?, forKey: key) }
    public func flush() async {}
    public func removeAll() async throws {
        throw ProcessorStorageError("\(Self.self) cannot erase its values: implement ProcessorStorage.removeAll()")
    }
}
