public import TelemetryKit
import TelemetryKitSupport

/// A configured transformation, ready for `TelemetryClient(transformations:)` or
/// `Destination(transformations:)`.
///
/// Checks the settings' conditions for each event and runs the transformer when they are met;
/// otherwise the event passes unchanged. Made by
/// ``TransformationConfiguration/transformations(storage:logger:clock:)``.
public struct Transformation: EventTransformation {
    /// The settings it was made from.
    public let settings: TransformationSettings
    /// The settings' conditions, laid out for evaluation (none: always met).
    private let conditions: CompiledRule
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
        self.conditions = CompiledRule(settings.conditions)
        self.body = body
        self.logger = logger
        self.reported = Locked([])
    }

    public var id: String { settings.id }
    public var order: Int { settings.effectiveOrder }
    public var scope: TransformationScope { settings.scope }

    public func transform(_ event: consuming Event, destination: String?) async -> Event? {
        let isMet = conditionsAreMet(by: event)
        switch body {
        case .setDataValues(let transformer):
            if isMet { transformer.apply(to: &event) }
            return event
        case .lowercase(let transformer):
            if isMet { transformer.apply(to: &event) }
            return event
        case .persistDataValue(let transformer):
            return isMet ? await transformer.apply(to: event) : await transformer.bypass(event)
        case .custom(let transformer, let settings):
            guard isMet else { return event }
            return await transformer.apply(settings, to: event, scope: TransformationPoint(destination: destination))
        }
    }

    /// Whether the settings' conditions hold for `event` (no conditions: always). A condition
    /// that cannot be decided (a numeric operator on a non-number) counts as not met and is
    /// reported once.
    private func conditionsAreMet(by event: borrowing Event) -> Bool {
        do {
            return try conditions.isMet(by: event)
        } catch {
            report(error, eventName: event.type)
            return false
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
