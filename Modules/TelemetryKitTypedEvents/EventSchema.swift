public import TelemetryKit

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One event of a tracking plan: its name, and each parameter's key, type and optionality.
///
/// ``TypedEvent/eventSchemas`` produces them (the `@TelemetryEvent` macro writes it from the
/// type's properties or cases); `TrackingPlan` collects them, exports them as JSON and checks
/// untyped events against them.
public struct EventSchema: Sendable, Hashable, Codable {
    /// The event's name, e.g. `Checkout.completed`.
    public var name: String
    /// The event's parameters, in declaration order.
    public var parameters: [Parameter]
    /// Whether the event carries a `floatValue`, and whether it may be missing; nil when it
    /// never carries one.
    public var floatValue: FloatValue?

    /// Creates an event schema.
    public init(name: String, parameters: [Parameter] = [], floatValue: FloatValue? = nil) {
        self.name = name
        self.parameters = parameters
        self.floatValue = floatValue
    }

    /// One parameter of an event.
    public struct Parameter: Sendable, Hashable, Codable {
        /// The key in the event's payload.
        public var key: String
        /// The type its value has.
        public var type: EventParameterType
        /// Whether the key may be missing (an optional property that was nil).
        public var isOptional: Bool

        /// Creates a parameter description.
        public init(key: String, type: EventParameterType, isOptional: Bool = false) {
            self.key = key
            self.type = type
            self.isOptional = isOptional
        }
    }

    /// The `floatValue` an event carries.
    public struct FloatValue: Sendable, Hashable, Codable {
        /// Whether it may be missing (an optional property that was nil).
        public var isOptional: Bool

        /// Creates a float value description.
        public init(isOptional: Bool = false) {
            self.isOptional = isOptional
        }
    }
}

/// The types a typed event's parameter can have, as a tracking plan names them.
///
/// Each maps to one form in the payload: ``string``, ``date`` (ISO 8601 in UTC with
/// milliseconds), ``uuid`` (upper-case) and ``url`` (absolute string) are JSON strings;
/// ``int``, ``double`` and ``bool`` are JSON numbers and booleans. A `RawRepresentable` enum
/// is ``string`` or ``int``, after its raw value.
public enum EventParameterType: String, Sendable, Hashable, Codable, CaseIterable {
    case string
    case int
    case double
    case bool
    case date
    case uuid
    case url

    /// Whether `value` has this type's payload form.
    ///
    /// A ``double`` accepts integers too (`3` is a valid `3.0` once encoded as JSON); the
    /// string-based types check their format, so a date sent as a timestamp is a violation.
    public func accepts(_ value: PayloadValue) -> Bool {
        switch (self, value) {
        case (.string, .string), (.int, .int), (.double, .double), (.double, .int), (.bool, .bool):
            return true
        case (.date, .string(let text)):
            return ISO8601.date(from: text) != nil
        case (.uuid, .string(let text)):
            return UUID(uuidString: text) != nil
        case (.url, .string(let text)):
            return !text.isEmpty
        default:
            return false
        }
    }
}
