import TelemetryKit

/// The transformers a configuration knows, by id: the built-ins plus any registered.
///
/// A registered transformer replaces one with the same id, built-ins included.
public struct TransformerRegistry: Sendable {
    enum Entry: Sendable {
        case builtIn(BuiltInTransformers.Kind)
        case instance(any Transformer)
        case factory(@Sendable (TransformerContext) -> any Transformer)
    }

    private(set) var entries: [String: Entry]

    /// A registry with the built-in transformers (`SetDataValues`, `PersistDataValue`, `Lowercase`).
    public init() {
        var entries: [String: Entry] = [:]
        for kind in BuiltInTransformers.Kind.allCases { entries[kind.rawValue] = .builtIn(kind) }
        self.entries = entries
    }

    /// Registers `transformer` under its id.
    public mutating func register(_ transformer: any Transformer) {
        entries[transformer.id] = .instance(transformer)
    }

    /// Registers a factory for `id`, called once each time a configuration makes its
    /// transformations (use it when the transformer needs storage, the logger or the clock).
    public mutating func register(
        id: String,
        factory: @escaping @Sendable (TransformerContext) -> any Transformer
    ) {
        entries[id] = .factory(factory)
    }

    /// Whether a transformer with `id` is known.
    public func contains(_ id: String) -> Bool {
        entries[id] != nil
    }

    /// The known transformer ids, sorted.
    public var ids: [String] {
        entries.keys.sorted()
    }
}
