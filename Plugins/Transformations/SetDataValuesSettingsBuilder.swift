public import TelemetryKit

/// Builds a `SetDataValues` transformation: copies values between keys or sets constants.
///
/// ```swift
/// config.setTransformation(
///     SetDataValuesSettingsBuilder(id: "copy-email")
///         .setFrom(.key("raw_email"), to: .key("email"))
///         .setConstant("high_value", to: .key("user_segment"))
///         .setScope(.afterProcessors)
/// )
/// ```
///
/// Operations run in the order they were added; a copy whose source is missing is skipped.
/// JSON configuration:
/// `{"operations": [{"from": {"key": "raw_email"}, "to": {"key": "email"}}, {"constant": "high_value", "to": {"key": "user_segment"}}]}`.
public struct SetDataValuesSettingsBuilder: TransformationSettingsBuilder {
    /// The `transformer_id` of `SetDataValues` transformations.
    public static let transformerID = "SetDataValues"

    public var settings: TransformationSettings

    /// A builder for the transformation `id` (scope `.afterProcessors` until set).
    public init(id: String) {
        settings = TransformationSettings(id: id, transformerID: Self.transformerID)
    }

    /// Copies the value of `source` to `target` (skipped when the event has no `source`).
    public func setFrom(_ source: VariableAccessor, to target: VariableAccessor) -> Self {
        adding([Keys.from: source.json, Keys.to: target.json])
    }

    /// Sets `target` to `value`.
    public func setConstant(_ value: some ParameterValue, to target: VariableAccessor) -> Self {
        adding([Keys.constant: JSONValue(value.payloadValue), Keys.to: target.json])
    }

    private func adding(_ operation: JSONValue) -> Self {
        var copy = self
        let operations = copy.settings.configuration.values[Keys.operations]?.arrayValue ?? []
        copy.settings.configuration.values[Keys.operations] = .array(operations + [operation])
        return copy
    }

    enum Keys {
        static let operations = "operations"
        static let from = "from"
        static let to = "to"
        static let constant = "constant"
    }
}

extension VariableAccessor {
    /// The variable's JSON form, `{"key": "name"}`.
    public var json: JSONValue {
        [TransformationSettings.Keys.key: .string(key)]
    }
}

/// Runs `SetDataValues` transformations.
struct SetDataValuesTransformer: Sendable {
    enum Operation: Sendable, Hashable {
        case copy(from: VariableAccessor, to: VariableAccessor)
        case constant(PayloadValue, to: VariableAccessor)
    }

    struct Plan: Sendable, Hashable {
        var operations: [Operation]

        init(reader: SettingsReader) throws(TransformationSettingsError) {
            typealias Keys = SetDataValuesSettingsBuilder.Keys
            let members = try reader.object()
            let list = try reader.required(Keys.operations, in: members).array()
            guard !list.isEmpty else {
                throw reader.error(
                    .invalidValue("needs at least one operation"),
                    field: reader.fieldPath(Keys.operations)
                )
            }
            operations = try list.map { (entry: SettingsReader) throws(TransformationSettingsError) -> Operation in
                let fields = try entry.object()
                let target = try entry.required(Keys.to, in: fields).variable()
                let source = entry.optional(Keys.from, in: fields)
                let constant = entry.optional(Keys.constant, in: fields)
                switch (source, constant) {
                case (let source?, nil): return .copy(from: try source.variable(), to: target)
                case (nil, let constant?): return .constant(try constant.scalar(), to: target)
                case (nil, nil): throw entry.error(.missingField, field: entry.fieldPath(Keys.from))
                case (_?, _?):
                    throw entry.error(.invalidValue("give either 'from' or 'constant', not both"))
                }
            }
        }
    }

    let plan: Plan

    func apply(to event: inout Event) {
        for operation in plan.operations {
            switch operation {
            case .copy(let source, let target):
                if let value = event.value(for: source) { event.setValue(value, for: target) }
            case .constant(let value, let target):
                event.setValue(value, for: target)
            }
        }
    }
}
