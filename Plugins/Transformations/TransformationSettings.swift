public import TelemetryKit

/// One configured transformation: which transformer runs, where, when, and with what settings.
///
/// Built by the settings builders (``SetDataValuesSettingsBuilder``,
/// ``PersistDataValueSettingsBuilder``, ``LowercaseSettingsBuilder``) or loaded from JSON:
///
/// ```json
/// {"transformation_id": "normalize", "transformer_id": "Lowercase", "scope": "afterprocessors",
///  "order": 10, "conditions": {"variable": {"key": "event_name"}, "operator": "equals",
///  "filter": {"value": "purchase"}}, "configuration": {}}
/// ```
///
/// A configuration holds at most one entry per (``transformerID``, ``id``) pair.
public struct TransformationSettings: Sendable, Hashable {
    /// The transformation's id (`transformation_id`).
    public var id: String
    /// The id of the ``Transformer`` that runs it (`transformer_id`).
    public var transformerID: String
    /// Where it runs.
    public var scope: TransformationScope
    /// Lower runs first within a scope; nil runs last (`Int.max`).
    public var order: Int?
    /// When it applies; nil applies to every event.
    public var conditions: Rule<Condition>?
    /// Transformer-specific settings.
    public var configuration: DataObject

    public init(
        id: String,
        transformerID: String,
        scope: TransformationScope = .afterProcessors,
        order: Int? = nil,
        conditions: Rule<Condition>? = nil,
        configuration: DataObject = [:]
    ) {
        self.id = id
        self.transformerID = transformerID
        self.scope = scope
        self.order = order
        self.conditions = conditions
        self.configuration = configuration
    }

    /// The order used for sorting: ``order`` or `Int.max`.
    public var effectiveOrder: Int { order ?? Int.max }

    /// The JSON keys of an entry.
    enum Keys {
        static let transformationID = "transformation_id"
        static let transformerID = "transformer_id"
        static let scope = "scope"
        static let order = "order"
        static let conditions = "conditions"
        static let configuration = "configuration"
        static let `operator` = "operator"
        static let children = "children"
        static let variable = "variable"
        static let key = "key"
        static let filter = "filter"
        static let value = "value"
    }
}

/// Builds ``TransformationSettings`` step by step; every builder has scope, order and conditions.
///
/// ```swift
/// config.setTransformation(
///     LowercaseSettingsBuilder(id: "normalize")
///         .lowercaseAllVariables()
///         .setScope(.afterProcessors)
///         .setOrder(10)
/// )
/// ```
public protocol TransformationSettingsBuilder: Sendable {
    /// The settings built so far.
    var settings: TransformationSettings { get set }
}

extension TransformationSettingsBuilder {
    /// Sets where the transformation runs (default `.afterProcessors`).
    public func setScope(_ scope: TransformationScope) -> Self {
        var copy = self
        copy.settings.scope = scope
        return copy
    }

    /// Sets the order within the scope: lower runs first (default: last).
    public func setOrder(_ order: Int) -> Self {
        var copy = self
        copy.settings.order = order
        return copy
    }

    /// Sets the conditions under which the transformation applies (default: always).
    public func setConditions(_ conditions: Rule<Condition>) -> Self {
        var copy = self
        copy.settings.conditions = conditions
        return copy
    }

    /// The finished settings.
    public func build() -> TransformationSettings {
        settings
    }
}
