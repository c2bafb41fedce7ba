public import TelemetryKit

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Builds a `PersistDataValue` transformation: remembers a value and adds it to later events.
///
/// When the conditions are met, the value of the source variable (or a constant) is stored
/// in `ProcessorStorage` under the target key; every event the transformation sees while the
/// value has not expired gets it under the target key, unless the event has its own value
/// for that key (the event's value wins).
///
/// ```swift
/// config.setTransformation(
///     PersistDataValueSettingsBuilder(id: "remember-plan")
///         .persist(.key("plan"), as: .key("user_plan"))
///         .setExpiry(.session)
///         .setUpdatePolicy(.keepFirstValue)
///         .setConditions(.just(Condition.equals(variable: "event_name", target: "Login.completed")))
/// )
/// ```
///
/// JSON configuration: `{"from": {"key": "plan"}, "to": {"key": "user_plan"}, "expiry": "session",
/// "update_policy": "keep_first_value"}`; `"constant": value` instead of `"from"`; `expiry` is
/// `"session"`, `"forever"` (default), `"untilrestart"` or a number of seconds; `update_policy`
/// is `"allow_update"` (default) or `"keep_first_value"`.
public struct PersistDataValueSettingsBuilder: TransformationSettingsBuilder {
    /// The `transformer_id` of `PersistDataValue` transformations.
    public static let transformerID = "PersistDataValue"

    public var settings: TransformationSettings

    /// A builder for the transformation `id` (expiry `.forever`, `.allowUpdate`, scope
    /// `.afterProcessors` until set).
    public init(id: String) {
        settings = TransformationSettings(id: id, transformerID: Self.transformerID)
    }

    /// Persists the value of `source` under `target` (default: the same key).
    public func persist(_ source: VariableAccessor, as target: VariableAccessor? = nil) -> Self {
        var copy = self
        copy.settings.configuration.values[Keys.constant] = nil
        copy.settings.configuration.values[Keys.from] = source.json
        copy.settings.configuration.values[Keys.to] = (target ?? source).json
        return copy
    }

    /// Persists `value` under `target`.
    public func persistConstant(_ value: some ParameterValue, as target: VariableAccessor) -> Self {
        var copy = self
        copy.settings.configuration.values[Keys.from] = nil
        copy.settings.configuration.values[Keys.constant] = JSONValue(value.payloadValue)
        copy.settings.configuration.values[Keys.to] = target.json
        return copy
    }

    /// Sets how long the persisted value lives.
    public func setExpiry(_ expiry: PersistenceExpiry) -> Self {
        var copy = self
        copy.settings.configuration.values[Keys.expiry] = expiry.json
        return copy
    }

    /// Sets whether later matching events replace the persisted value.
    public func setUpdatePolicy(_ policy: PersistenceUpdatePolicy) -> Self {
        var copy = self
        copy.settings.configuration.values[Keys.updatePolicy] = .string(policy.rawValue)
        return copy
    }

    enum Keys {
        static let from = "from"
        static let to = "to"
        static let constant = "constant"
        static let expiry = "expiry"
        static let updatePolicy = "update_policy"
    }
}

/// How long a persisted value lives.
public enum PersistenceExpiry: Sendable, Hashable {
    /// Until the session changes: the first event with another `sessionID` expires it.
    case session
    /// Until removed.
    case forever
    /// Until the transformation is made again (a new client, a new app launch).
    case untilRestart
    /// For this many seconds after it was stored (by the configured `TelemetryClock`).
    case duration(TimeInterval)

    /// The JSON form: `"session"`, `"forever"`, `"untilrestart"` or the number of seconds.
    public var json: JSONValue {
        switch self {
        case .session: return "session"
        case .forever: return "forever"
        case .untilRestart: return "untilrestart"
        case .duration(let seconds): return .double(seconds)
        }
    }

    /// The expiry written as JSON (names in any case; `"until_restart"` also accepted),
    /// or nil when `json` is not one (durations must be positive).
    public init?(json: JSONValue) {
        switch json {
        case .string(let name):
            switch name.lowercased() {
            case "session": self = .session
            case "forever": self = .forever
            case "untilrestart", "until_restart": self = .untilRestart
            default: return nil
            }
        case .int, .double:
            guard let seconds = json.doubleValue, seconds > 0, seconds.isFinite else { return nil }
            self = .duration(seconds)
        default:
            return nil
        }
    }
}

/// Whether a persisted value may be replaced before it expires.
public enum PersistenceUpdatePolicy: String, Sendable, Hashable, CaseIterable {
    /// Each matching event stores its value (and restarts a duration).
    case allowUpdate = "allow_update"
    /// The first value stays until it expires.
    case keepFirstValue = "keep_first_value"
}
