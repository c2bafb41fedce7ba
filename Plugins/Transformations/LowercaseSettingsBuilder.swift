import TelemetryKit

/// Builds a `Lowercase` transformation: lowercases string values.
///
/// ```swift
/// config.setTransformation(
///     LowercaseSettingsBuilder(id: "normalize")
///         .lowercaseAllVariables()
///         .setScope(.afterProcessors)
///         .setOrder(10)
/// )
/// ```
///
/// In all-values mode (the default) every string payload value is lowercased except the
/// SDK's own keys (`TelemetryDeck.…`, see `SDKInfo.isReserved`); the event name is kept.
/// With listed variables only those are lowercased (`event_name` lowercases the event name).
/// Numbers and booleans are never changed.
/// JSON configuration: `{}` for all values, or `{"variables": [{"key": "email"}, {"key": "city"}]}`.
public struct LowercaseSettingsBuilder: TransformationSettingsBuilder {
    /// The `transformer_id` of `Lowercase` transformations.
    public static let transformerID = "Lowercase"

    public var settings: TransformationSettings

    /// A builder for the transformation `id` (all values, scope `.afterProcessors` until set).
    public init(id: String) {
        settings = TransformationSettings(id: id, transformerID: Self.transformerID)
    }

    /// Lowercases every string value except the SDK's own keys.
    public func lowercaseAllVariables() -> Self {
        var copy = self
        copy.settings.configuration.values[Keys.variables] = nil
        return copy
    }

    /// Lowercases only `variables`.
    public func lowercaseVariables(_ variables: [VariableAccessor]) -> Self {
        var copy = self
        copy.settings.configuration.values[Keys.variables] = .array(variables.map(\.json))
        return copy
    }

    enum Keys {
        static let variables = "variables"
    }
}

/// Runs `Lowercase` transformations.
struct LowercaseTransformer: Sendable {
    enum Plan: Sendable, Hashable {
        case allValues
        case variables([VariableAccessor])

        init(reader: SettingsReader) throws(TransformationSettingsError) {
            typealias Keys = LowercaseSettingsBuilder.Keys
            let members = try reader.object()
            guard let list = reader.optional(Keys.variables, in: members) else {
                self = .allValues
                return
            }
            let variables = try list.array().map {
                (entry: SettingsReader) throws(TransformationSettingsError) -> VariableAccessor in
                try entry.variable()
            }
            guard !variables.isEmpty else {
                throw list.error(
                    .invalidValue("list at least one variable, or omit 'variables' to lowercase all values")
                )
            }
            self = .variables(variables)
        }
    }

    let plan: Plan

    func apply(to event: inout Event) {
        switch plan {
        case .allValues:
            var changes: [(String, PayloadValue)] = []
            event.forEachPayloadEntry { key, value in
                guard case .string(let string) = value, !SDKInfo.isReserved(key) else { return }
                let lowered = string.lowercased()
                if lowered != string { changes.append((key, .string(lowered))) }
            }
            for (key, value) in changes { event.setPayloadValue(value, forKey: key) }
        case .variables(let variables):
            for variable in variables {
                guard case .string(let string)? = event.value(for: variable) else { continue }
                event.setValue(.string(string.lowercased()), for: variable)
            }
        }
    }
}
