import TelemetryKit
public import TelemetryKitTypedEvents

/// One piece of analytics an app reports: an event, a screen view, who the user is, a user
/// property, or an error.
///
/// An ``AnalyticsReducer`` maps actions to these values; an ``AnalyticsClient`` sends them
/// wherever the app wants (TelemetryKit's pipeline, the console, a test expectation).
///
/// ```swift
/// let tapped: AnalyticsData = "ButtonTapped"              // an event without properties
/// let same = AnalyticsData.event("ButtonTapped")           // the same event
/// let shown = AnalyticsData.screen(name: "Settings")
/// ```
public enum AnalyticsData: Sendable {
    /// A named event with string properties.
    case event(name: String, properties: [String: String] = [:])
    /// The user looked at the screen called `name`.
    case screen(name: String)
    /// The user's identifier from now on.
    case userId(String)
    /// A property of the user that later events carry.
    case userProperty(name: String, value: String)
    /// An error the app ran into.
    case error(any Error)
    /// A typed event (see `TypedEvent`), sent with its own parameter types and float value.
    case typedEvent(any TypedEvent)

    /// An event named `name`: shorthand for `.event(name: name, properties: properties)`.
    public static func event(_ name: String, properties: [String: String] = [:]) -> AnalyticsData {
        .event(name: name, properties: properties)
    }
}

extension AnalyticsData: Equatable {
    /// Compares two values case by case.
    ///
    /// Errors are equal when they have the same dynamic type and, for `Equatable` errors,
    /// compare equal with `==`; other errors are compared by `String(describing:)`, because
    /// `any Error` has no equality of its own.
    public static func == (lhs: AnalyticsData, rhs: AnalyticsData) -> Bool {
        switch (lhs, rhs) {
        case let (.event(lhsName, lhsProperties), .event(rhsName, rhsProperties)):
            return lhsName == rhsName && lhsProperties == rhsProperties
        case let (.screen(lhsName), .screen(rhsName)):
            return lhsName == rhsName
        case let (.userId(lhsID), .userId(rhsID)):
            return lhsID == rhsID
        case let (.userProperty(lhsName, lhsValue), .userProperty(rhsName, rhsValue)):
            return lhsName == rhsName && lhsValue == rhsValue
        case let (.error(lhsError), .error(rhsError)):
            return errorsEqual(lhsError, rhsError)
        case let (.typedEvent(lhsEvent), .typedEvent(rhsEvent)):
            // Equal when they send the same event, whatever their Swift types.
            return lhsEvent.eventName == rhsEvent.eventName && lhsEvent.parameters == rhsEvent.parameters
                && lhsEvent.floatValue == rhsEvent.floatValue
        case (.event, _), (.screen, _), (.userId, _), (.userProperty, _), (.error, _), (.typedEvent, _):
            return false
        }
    }

    private static func errorsEqual(_ lhs: any Error, _ rhs: any Error) -> Bool {
        guard ObjectIdentifier(type(of: lhs)) == ObjectIdentifier(type(of: rhs)) else { return false }
        if let equal = equatableEqual(lhs, rhs) { return equal }
        return String(describing: lhs) == String(describing: rhs)
    }

    /// `==` for values of an `Equatable` type, nil otherwise. Takes `Any`: casting `any Error`
    /// directly would be satisfied by Foundation's error bridging rather than the error's type.
    private static func equatableEqual(_ lhs: Any, _ rhs: Any) -> Bool? {
        guard let equatable = lhs as? any Equatable else { return nil }
        return equatable.isEqual(to: rhs)
    }
}

extension Equatable {
    /// `self == other` when `other` has the same type; false otherwise.
    fileprivate func isEqual(to other: Any) -> Bool {
        guard let other = other as? Self else { return false }
        return self == other
    }
}

extension AnalyticsData: ExpressibleByStringLiteral {
    /// A string literal is an event with that name and no properties.
    public init(stringLiteral name: String) {
        self = .event(name: name, properties: [:])
    }
}

extension AnalyticsData: CustomStringConvertible {
    /// A one-line form for logs, e.g. `event(ButtonTapped, [source: toolbar])`.
    public var description: String {
        switch self {
        case let .event(name, properties):
            if properties.isEmpty { return "event(\(name))" }
            let sorted = properties.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
            return "event(\(name), [\(sorted.joined(separator: ", "))])"
        case let .screen(name):
            return "screen(\(name))"
        case let .userId(id):
            return "userId(\(id))"
        case let .userProperty(name, value):
            return "userProperty(\(name): \(value))"
        case let .error(error):
            return "error(\(AnalyticsData.typeName(of: error)): \(error))"
        case let .typedEvent(event):
            let parameters = event.parameters.values.sorted { $0.key < $1.key }.map {
                "\($0.key): \($0.value.stringValue)"
            }
            let floatValue = event.floatValue.map { ", floatValue: \($0)" } ?? ""
            if parameters.isEmpty { return "typedEvent(\(event.eventName)\(floatValue))" }
            return "typedEvent(\(event.eventName), [\(parameters.joined(separator: ", "))]\(floatValue))"
        }
    }

    /// The fully qualified type name of `error`, e.g. `MyApp.NetworkError`.
    ///
    /// Private and local types get an `(unknown context at $<address>).` component from the
    /// runtime; it is removed, because the address changes from run to run and would split
    /// one error into many on a dashboard.
    static func typeName(of error: any Error) -> String {
        String(reflecting: type(of: error)).replacing(/\(unknown context at \$[0-9a-fA-F]+\)\./, with: "")
    }
}
