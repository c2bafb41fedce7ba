#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// One value held by a file-backed `ProcessorStorage`: the four types the protocol supports.
///
/// The type is part of the value, so a key holding `.integer(1)` answers `nil` to
/// `bool(forKey:)`, and a format must keep the four cases apart on disk.
public enum StoredValue: Sendable, Hashable {
    case data(Data)
    case string(String)
    case integer(Int)
    case bool(Bool)
}
