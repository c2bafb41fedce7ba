public import TelemetryKit
import TelemetryKitSupport

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// `ProcessorStorage` in memory: nothing persists beyond the instance.
///
/// Use it in tests, previews, and servers that must not write to disk. Share one instance
/// between clients to simulate an app restart with the same storage.
public final class InMemoryProcessorStorage: ProcessorStorage {
    private enum Value: Sendable {
        case data(Data)
        case string(String)
        case integer(Int)
        case bool(Bool)
        case stringArray([String])
    }

    private let values = Locked([String: Value]())

    public init() {}

    public func data(forKey key: String) async -> Data? {
        if case .data(let value) = values.withLock({ $0[key] }) { return value }
        return nil
    }

    public func string(forKey key: String) async -> String? {
        if case .string(let value) = values.withLock({ $0[key] }) { return value }
        return nil
    }

    public func integer(forKey key: String) async -> Int {
        if case .integer(let value) = values.withLock({ $0[key] }) { return value }
        return 0
    }

    public func bool(forKey key: String) async -> Bool {
        if case .bool(let value) = values.withLock({ $0[key] }) { return value }
        return false
    }

    public func stringArray(forKey key: String) async -> [String]? {
        if case .stringArray(let value) = values.withLock({ $0[key] }) { return value }
        return nil
    }

    public func set(_ value: Data?, forKey key: String) async { store(value.map(Value.data), forKey: key) }
    public func set(_ value: String?, forKey key: String) async { store(value.map(Value.string), forKey: key) }
    /// Stores a string array, as the TelemetryDeck v2 SDK did (read by ``stringArray(forKey:)``;
    /// lets tests stand in for a v2 storage).
    public func set(_ value: [String]?, forKey key: String) async {
        store(value.map(Value.stringArray), forKey: key)
    }
    public func set(_ value: Int, forKey key: String) async { values.withLock { $0[key] = .integer(value) } }
    public func set(_ value: Bool, forKey key: String) async { values.withLock { $0[key] = .bool(value) } }

    public func removeValue(forKey key: String) async { store(nil, forKey: key) }
    public func removeAll() async { values.withLock { $0.removeAll() } }

    private func store(_ value: Value?, forKey key: String) {
        values.withLock { $0[key] = value }
    }

    /// The stored keys, for tests and debugging.
    public var keys: [String] {
        values.withLock { Array($0.keys) }
    }
}
