public import TelemetryKit

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The transformations of a client, in registration order, and the transformers that run them.
///
/// ```swift
/// var config = TransformationConfiguration()
/// config.setTransformation(
///     SetDataValuesSettingsBuilder(id: "copy-email")
///         .setFrom(.key("raw_email"), to: .key("email"))
///         .setScope(.afterProcessors)
/// )
/// try config.load(contentsOf: settingsURL)
/// let client = TelemetryClient(
///     configuration: .init(appID: "APP-ID"),
///     destinations: [destination],
///     transformations: config.transformations(storage: storage),
///     storage: storage
/// )
/// ```
public struct TransformationConfiguration: Sendable {
    /// The settings, in registration order.
    public private(set) var settings: [TransformationSettings]
    /// The transformers settings can name.
    public var registry: TransformerRegistry

    /// A configuration with the built-in transformers and `transformers`.
    public init(transformers: [any Transformer] = []) {
        settings = []
        registry = TransformerRegistry()
        for transformer in transformers { registry.register(transformer) }
    }

    /// Adds the settings a builder made; an entry with the same (transformer id, id) pair is
    /// replaced in place, keeping its position in registration order.
    public mutating func setTransformation(_ builder: some TransformationSettingsBuilder) {
        setTransformation(builder.build())
    }

    /// Adds `settings`, replacing the entry with the same (transformer id, id) pair in place.
    public mutating func setTransformation(_ settings: TransformationSettings) {
        if let index = self.settings.firstIndex(where: {
            $0.id == settings.id && $0.transformerID == settings.transformerID
        }) {
            self.settings[index] = settings
        } else {
            self.settings.append(settings)
        }
    }

    /// Removes the entry with this (transformer id, id) pair, if any.
    public mutating func removeTransformation(id: String, transformerID: String) {
        settings.removeAll { $0.id == id && $0.transformerID == transformerID }
    }

    /// Registers a custom transformer (see ``TransformerRegistry/register(_:)``).
    public mutating func register(_ transformer: any Transformer) {
        registry.register(transformer)
    }

    /// Adds every entry of a JSON settings array (see ``TransformationSettings/decode(json:)``).
    ///
    /// - Parameter data: the UTF-8 JSON array of settings entries.
    /// - Parameter lenient: when true, invalid entries are skipped and returned as errors;
    ///   when false, the first invalid entry throws and nothing is added.
    /// - Returns: the errors of skipped entries (always empty when not lenient).
    /// - Throws: ``TransformationSettingsError`` naming the entry index and field.
    @discardableResult
    public mutating func load(
        json data: Data,
        lenient: Bool = false
    ) throws(TransformationSettingsError)
        -> [TransformationSettingsError]
    {
        if lenient {
            let (loaded, errors) = try TransformationSettings.decodeLeniently(json: data)
            for entry in loaded { setTransformation(entry) }
            return errors
        }
        for entry in try TransformationSettings.decode(json: data) { setTransformation(entry) }
        return []
    }

    /// Adds every entry of a JSON settings file (see ``load(json:lenient:)``).
    @discardableResult
    public mutating func load(
        contentsOf url: URL,
        lenient: Bool = false
    ) throws(TransformationSettingsError)
        -> [TransformationSettingsError]
    {
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw TransformationSettingsError(reason: .unreadableFile(path: url.path, message: "\(error)"))
        }
        return try load(json: data, lenient: lenient)
    }

    /// The transformations to hand to a client, in registration order (the client sorts by
    /// scope and order).
    ///
    /// An entry naming an unknown transformer, or a built-in one with an invalid
    /// configuration, is left out with a logged warning: its events pass unchanged.
    public func transformations(
        storage: any ProcessorStorage,
        logger: any Logging = StandardErrorLogger(),
        clock: any TelemetryClock = SystemClock()
    ) -> [any EventTransformation] {
        let context = TransformerContext(storage: storage, logger: logger, clock: clock)
        var made: [String: any Transformer] = [:]
        var result: [any EventTransformation] = []
        result.reserveCapacity(settings.count)
        for entry in settings {
            guard let registered = registry.entries[entry.transformerID] else {
                logger.log(
                    .warning,
                    "transformation '\(entry.id)': unknown transformer_id '\(entry.transformerID)'; events pass unchanged"
                )
                continue
            }
            let body: TransformationBody
            switch registered {
            case .builtIn(let kind):
                do {
                    body = try BuiltInTransformers.make(kind, settings: entry, context: context)
                } catch {
                    logger.log(.warning, "transformation '\(entry.id)' left out: \(error)")
                    continue
                }
            case .instance(let transformer):
                body = .custom(transformer, entry)
            case .factory(let factory):
                let transformer = made[entry.transformerID] ?? factory(context)
                made[entry.transformerID] = transformer
                body = .custom(transformer, entry)
            }
            result.append(Transformation(settings: entry, body: body, logger: logger))
        }
        return result
    }
}
