public import TelemetryKit

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A named storage type in front of a ``FileBackedProcessorStorage`` with a fixed file
/// format (`PlistProcessorStorage`, `JSONFileProcessorStorage`): conforming types only
/// create `backing`; every `ProcessorStorage` operation and the inspection properties
/// forward to it.
public protocol FileBackedStorageFront: ProcessorStorage {
    /// The storage doing the work.
    var backing: FileBackedProcessorStorage { get }
}

extension FileBackedStorageFront {
    /// The storage's file.
    public var fileURL: URL { backing.fileURL }

    /// Write counters and state, for tests and debugging.
    public var diagnostics: FileStorageDiagnostics { backing.diagnostics }

    /// The stored keys, for tests and debugging.
    public var keys: [String] { backing.keys }

    public func data(forKey key: String) async -> Data? { await backing.data(forKey: key) }
    public func string(forKey key: String) async -> String? { await backing.string(forKey: key) }
    public func integer(forKey key: String) async -> Int? { await backing.integer(forKey: key) }
    public func bool(forKey key: String) async -> Bool? { await backing.bool(forKey: key) }

    public func set(_ value: Data, forKey key: String) async { await backing.set(value, forKey: key) }
    public func set(_ value: String, forKey key: String) async { await backing.set(value, forKey: key) }
    public func set(_ value: Int, forKey key: String) async { await backing.set(value, forKey: key) }
    public func set(_ value: Bool, forKey key: String) async { await backing.set(value, forKey: key) }

    public func removeValue(forKey key: String) async { await backing.removeValue(forKey: key) }

    public func flush() async { await backing.flush() }
}
