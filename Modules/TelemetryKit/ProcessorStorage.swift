#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Small persistent key-value storage for processors (UserDefaults-like).
///
/// Supports `Data`, `String`, `Int` and `Bool`. A getter returns `nil` when the key is
/// missing or holds a value of another type.
///
/// ## Implementation requirements
/// - Safe to call from any task; a value set is visible to the next get at once, even if
///   the backend writes to disk later.
/// - `flush()` persists everything set so far; the client calls it at shutdown.
/// - Never crash on unreadable persisted data: start empty and log.
public protocol ProcessorStorage: Sendable {
    func data(forKey key: String) async -> Data?
    func string(forKey key: String) async -> String?
    func integer(forKey key: String) async -> Int?
    func bool(forKey key: String) async -> Bool?

    func set(_ value: Data, forKey key: String) async
    func set(_ value: String, forKey key: String) async
    func set(_ value: Int, forKey key: String) async
    func set(_ value: Bool, forKey key: String) async

    func removeValue(forKey key: String) async

    /// Writes pending changes to durable storage. Default: nothing to do.
    func flush() async
}

extension ProcessorStorage {
    public func flush() async {}
}
