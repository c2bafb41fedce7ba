public import TelemetryKit

/// Names a value of an event: a payload key, or the event's name.
///
/// Variables are payload keys; the key ``eventName`` (`"event_name"`) addresses the event's
/// name (`Event.type`) instead of a payload entry.
///
/// ```swift
/// SetDataValuesSettingsBuilder(id: "copy-email").setFrom(.key("raw_email"), to: .key("email"))
/// ```
public struct VariableAccessor: Sendable, Hashable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The key that addresses the event's name rather than a payload entry.
    public static let eventName = "event_name"

    /// The payload key (or ``eventName``).
    public let key: String
    /// Whether this variable addresses the event's name (computed once: it is read per event).
    public let isEventName: Bool

    /// A variable for `key`.
    public init(key: String) {
        self.key = key
        self.isEventName = key == VariableAccessor.eventName
    }

    public init(stringLiteral value: String) {
        self.init(key: value)
    }

    /// A variable for `key`.
    public static func key(_ key: String) -> VariableAccessor {
        VariableAccessor(key: key)
    }

    public var description: String { key }
}

extension Event {
    /// The value `variable` addresses, or nil when the event has none.
    @inlinable
    public func value(for variable: VariableAccessor) -> PayloadValue? {
        if variable.isEventName { return .string(type) }
        return payloadValue(forKey: variable.key)
    }

    /// Sets the value `variable` addresses; the event's name takes the value's string form.
    @inlinable
    public mutating func setValue(_ value: PayloadValue, for variable: VariableAccessor) {
        if variable.isEventName {
            type = value.stringValue
        } else {
            setPayloadValue(value, forKey: variable.key)
        }
    }
}
