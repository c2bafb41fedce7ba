#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A type that a ``TypedEvent``'s parameter may have: `String`, `Int`, `Double`, `Bool`,
/// `Date`, `UUID` and `URL`.
///
/// `RawRepresentable` types with a `String` or `Int` raw value need no conformance:
/// ``TypedEventCoding`` sends their raw value. The list is closed on purpose: each type has one
/// ``EventParameterType`` in the tracking plan, so a dashboard never sees a key change type.
/// A property of another type does not compile; the error, in the macro's expansion, names
/// this protocol:
///
/// ```
/// error: static method 'payloadValue' requires that 'Money' conform to 'TypedEventValue'
/// ```
public protocol TypedEventValue: Sendable {
    /// The type the tracking plan lists for values of this type.
    static var eventParameterType: EventParameterType { get }
    /// The value as it appears in the payload: the same as the untyped call sends.
    var eventPayloadValue: PayloadValue { get }
}

extension String: TypedEventValue {
    @inlinable public static var eventParameterType: EventParameterType { .string }
    @inlinable public var eventPayloadValue: PayloadValue { .string(self) }
}

extension Int: TypedEventValue {
    @inlinable public static var eventParameterType: EventParameterType { .int }
    @inlinable public var eventPayloadValue: PayloadValue { .int(Int64(self)) }
}

extension Double: TypedEventValue {
    @inlinable public static var eventParameterType: EventParameterType { .double }
    @inlinable public var eventPayloadValue: PayloadValue { .double(self) }
}

extension Bool: TypedEventValue {
    @inlinable public static var eventParameterType: EventParameterType { .bool }
    @inlinable public var eventPayloadValue: PayloadValue { .bool(self) }
}

extension Date: TypedEventValue {
    public static var eventParameterType: EventParameterType { .date }
    /// ISO 8601 in UTC with milliseconds, as `Date`'s `ParameterValue` sends it.
    public var eventPayloadValue: PayloadValue { payloadValue }
}

extension UUID: TypedEventValue {
    public static var eventParameterType: EventParameterType { .uuid }
    /// The upper-case `uuidString`, as `UUID`'s `ParameterValue` sends it.
    public var eventPayloadValue: PayloadValue { payloadValue }
}

extension URL: TypedEventValue {
    public static var eventParameterType: EventParameterType { .url }
    /// The `absoluteString`.
    public var eventPayloadValue: PayloadValue { .string(absoluteString) }
}

/// What the `@TelemetryEvent` macro's expansion calls to turn a property into a payload value
/// and a tracking-plan type.
///
/// The overloads accept exactly the supported types: ``TypedEventValue`` conformers, and
/// `RawRepresentable` types whose raw value is a `String` or an `Int` (an app's enums, with no
/// conformance to write). The macro cannot see a type's conformances, so the compiler checks
/// them here, at the property's expansion, with no run-time reflection.
public enum TypedEventCoding {
    /// The payload value of a supported value.
    @inlinable
    public static func payloadValue<Value: TypedEventValue>(_ value: Value) -> PayloadValue {
        value.eventPayloadValue
    }

    /// The raw value of a `String`-backed enum.
    @inlinable
    @_disfavoredOverload
    public static func payloadValue<Value: RawRepresentable>(_ value: Value) -> PayloadValue
    where Value.RawValue == String {
        .string(value.rawValue)
    }

    /// The raw value of an `Int`-backed enum.
    @inlinable
    @_disfavoredOverload
    public static func payloadValue<Value: RawRepresentable>(_ value: Value) -> PayloadValue
    where Value.RawValue == Int {
        .int(Int64(value.rawValue))
    }

    /// The tracking-plan type of a supported value type.
    @inlinable
    public static func parameterType<Value: TypedEventValue>(_: Value.Type) -> EventParameterType {
        Value.eventParameterType
    }

    /// ``EventParameterType/string`` for a `String`-backed enum.
    @inlinable
    @_disfavoredOverload
    public static func parameterType<Value: RawRepresentable>(_: Value.Type) -> EventParameterType
    where Value.RawValue == String {
        .string
    }

    /// ``EventParameterType/int`` for an `Int`-backed enum.
    @inlinable
    @_disfavoredOverload
    public static func parameterType<Value: RawRepresentable>(_: Value.Type) -> EventParameterType
    where Value.RawValue == Int {
        .int
    }
}
