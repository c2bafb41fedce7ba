#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A Swift value that can be used as an event parameter.
///
/// Adopted by `String`, `Bool`, every integer type, `Double`, `Float`, `UUID`, `Date`
/// (ISO 8601, UTC, milliseconds) and `PayloadValue` itself. Adopt it for your own types by
/// returning the payload representation:
///
/// ```swift
/// extension Plan: ParameterValue {
///     var payloadValue: PayloadValue { .string(rawValue) }
/// }
/// ```
public protocol ParameterValue: Sendable {
    /// The value as it appears in the event payload.
    var payloadValue: PayloadValue { get }
}

extension PayloadValue: ParameterValue {
    @inlinable public var payloadValue: PayloadValue { self }
}

extension String: ParameterValue {
    @inlinable public var payloadValue: PayloadValue { .string(self) }
}

extension Substring: ParameterValue {
    public var payloadValue: PayloadValue { .string(String(self)) }
}

extension Bool: ParameterValue {
    @inlinable public var payloadValue: PayloadValue { .bool(self) }
}

extension Double: ParameterValue {
    @inlinable public var payloadValue: PayloadValue { .double(self) }
}

extension Float: ParameterValue {
    @inlinable public var payloadValue: PayloadValue { .double(Double(self)) }
}

/// Every integer type is a parameter value: an integer within `Int64`'s range is sent as a
/// number, and a larger one (a `UInt64` above `Int64.max`) as its decimal string, never
/// truncated.
extension ParameterValue where Self: BinaryInteger {
    @inlinable public var payloadValue: PayloadValue {
        if let exact = Int64(exactly: self) { return .int(exact) }
        return .string(String(self))
    }
}

extension Int: ParameterValue {}
extension Int8: ParameterValue {}
extension Int16: ParameterValue {}
extension Int32: ParameterValue {}
extension Int64: ParameterValue {}
extension UInt: ParameterValue {}
extension UInt8: ParameterValue {}
extension UInt16: ParameterValue {}
extension UInt32: ParameterValue {}
extension UInt64: ParameterValue {}

extension UUID: ParameterValue {
    public var payloadValue: PayloadValue { .string(uuidString) }
}

extension Date: ParameterValue {
    /// ISO 8601 in UTC with milliseconds, e.g. `2024-06-15T14:00:00.000Z`.
    public var payloadValue: PayloadValue { .string(ISO8601.string(from: self)) }
}
