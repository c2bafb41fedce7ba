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
    private let body: any PreparedTransformer
    private let logger: any Logging
    /// Keys of the undecidable conditions already reported, so each is logged once.
    private let reported: Locked<Set<String>>

    /// A transformation that runs `transformer` with `settings`.
    public init(settings: TransformationSettings, transformer: any Transformer, logger: any Logging) {
        self.init(
            settings: settings,
            body: CustomPreparedTransformer(transformer: transformer, settings: settings),
            logger: logger
        )
    }

    init(settings: TransformationSettings, body: any PreparedTransformer, logger: any Logging) {
        self.settings = settings
        self.conditions = settings.conditions
        self.body = body
        self.logger = logger
        self.reported = Locked([])
    }

    public var id: String { settings.id }
    public var order: Int { settings.effectiveOrder }
    public var scope: TransformationScope { settings.scope }

    public func transform(_ event: Event, destination: String?) async -> Event? {
        let point = TransformationPoint(destination: destination)
        guard let conditions else {
            return await body.apply(to: event, at: point)
        }
        let isMet: Bool
        do {
            isMet = try conditions.isMet(by: event)
        } catch {
            report(error, eventName: event.type)
            return await body.bypass(event, at: point)
        }
        return isMet ? await body.apply(to: event, at: point) : await body.bypass(event, at: point)
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
