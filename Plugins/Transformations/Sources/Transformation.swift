public import TelemetryKit

/// A configured transformation, ready for `TelemetryClient(transformations:)` or
/// `Destination(transformations:)`.
///
/// Checks the settings' conditions for each event and runs the transformer when they are met;
/// otherwise the event passes unchanged. Made by
/// ``TransformationConfiguration/transformations(storage:logger:clock:)``.
public struct Transformation: EventTransformation {
    /// The settings it was made from.
    public let settings: TransformationSettings
    private let conditions: Rule<Condition>?
    private let body: TransformationBody
    private let logger: any Logging
    /// Keys of the undecidable conditions already reported, so each is logged once.
    private let reported: Locked<Set<String>>

    /// A transformation that runs `transformer` with `settings`.
    public init(settings: TransformationSettings, transformer: any Transformer, logger: any Logging) {
        self.init(
            settings: settings,
            body: .custom(transformer, settings),
            logger: logger
        )
    }

    init(settings: TransformationSettings, body: TransformationBody, logger: any Logging) {
        self.settings = settings
        self.conditions = settings.conditions
        self.body = body
        self.logger = logger
        self.reported = Locked([])
    }

    public var id: String { settings.id }
    public var order: Int { settings.effectiveOrder }
    public var scope: TransformationScope { settings.scope }

    public func transform(_ event: consuming Event, destination: String?) async -> Event? {
        if let conditions {
            let isMet: Bool
            do {
                isMet = try conditions.isMet(by: event)
            } catch {
                report(error, eventName: event.type)
                isMet = false
            }
            if !isMet {
                if case .persistDataValue(let transformer) = body { return await transformer.bypass(event) }
                return event
            }
        }
        switch body {
        case .setDataValues(let transformer):
            transformer.apply(to: &event)
            return event
        case .lowercase(let transformer):
            transformer.apply(to: &event)
            return event
        case .persistDataValue(let transformer):
            return await transformer.apply(to: event)
        case .custom(let transformer, let settings):
            return await transformer.apply(settings, to: event, scope: TransformationPoint(destination: destination))
        }
    }

    private func report(_ error: NonNumericValueError, eventName: String) {
        let key = "\(error.condition.variable.key)|\(error.condition.operator.rawValue)"
        let isFirst = reported.withLock { $0.insert(key).inserted }
        guard isFirst else { return }
        logger.log(
            .warning,
            "transformation '\(settings.id)' skipped: \(error) (reported once per condition)",
            eventName: eventName
        )
    }
}
