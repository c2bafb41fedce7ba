public import TelemetryKit

/// Runs transformations of one kind, named in settings by its ``id`` (`transformer_id`).
///
/// ```swift
/// struct EnrichTransformer: Transformer {
///     let id = "Enrich"
///     func apply(_ settings: TransformationSettings, to event: Event, scope: TransformationPoint) async -> Event? {
///         var event = event
///         if settings.configuration.get(key: "enable_enrichment") ?? true {
///             event.payload["transformed"] = "true"
///         }
///         return event
///     }
/// }
/// var config = TransformationConfiguration(transformers: [EnrichTransformer()])
/// ```
///
/// ## Implementation requirements
/// - `apply` is called only when the settings' conditions are met, for the scope's points.
/// - Return the (possibly changed) event, or nil to drop it for this scope only.
/// - Read `settings.configuration` defensively: settings come from JSON; a value of the
///   wrong type should fall back to a default or pass the event through, never crash.
/// - Keep `apply` cheap: it runs for every event of its scope.
public protocol Transformer: Sendable {
    /// The id that settings use to name this transformer (`transformer_id`).
    var id: String { get }

    /// Applies the transformation described by `settings` to `event`.
    func apply(_ settings: TransformationSettings, to event: Event, scope: TransformationPoint) async -> Event?
}

/// What a transformer factory gets when a configuration makes its transformations.
public struct TransformerContext: Sendable {
    /// Persistent storage shared with the processors.
    public var storage: any ProcessorStorage
    /// Where to report problems.
    public var logger: any Logging
    /// The source of time.
    public var clock: any TelemetryClock

    public init(storage: any ProcessorStorage, logger: any Logging, clock: any TelemetryClock) {
        self.storage = storage
        self.logger = logger
        self.clock = clock
    }
}

/// A transformation's work, bound to its settings, with its configuration parsed once.
///
/// An enum rather than a protocol so that the built-in synchronous transformers run without
/// an existential async call per event.
enum TransformationBody: Sendable {
    case setDataValues(SetDataValuesTransformer)
    case lowercase(LowercaseTransformer)
    case persistDataValue(PersistDataValueTransformer)
    case custom(any Transformer, TransformationSettings)
}
