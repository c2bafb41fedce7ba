public import TelemetryKit
import TelemetryKitSupport

/// Checks the events an app sends by name against a ``TelemetryKit/TrackingPlan``: warns once
/// per violation by default, or drops violating events.
///
/// Typed events match their plan by construction; the events still sent as strings — older
/// code, another module, a dynamic name — are where a misspelled name or a key sent with the
/// wrong type hides. This processor finds them while the app runs:
///
/// ```swift
/// let plan = TrackingPlan(CheckoutCompleted.self, Checkout.self)
/// try await Telemetry.initialize(
///     configuration: config,
///     processors: [TrackingPlanProcessor(plan: plan)] + Telemetry.defaultProcessors()
/// )
/// Telemetry.event("Checkout.completed", parameters: ["items": "3"])
/// // warning: 'Checkout.completed' sends 'items' as string; the tracking plan says int
/// ```
///
/// It checks the name, parameters and float value the app gave (not the SDK's metadata), so
/// put it first: after `DefaultPrefixProcessor` it would see prefixed names. SDK events
/// (`skipsReservedPrefixValidation`) and keys in the `TelemetryDeck.` namespace are never
/// violations. Each distinct ``TelemetryKit/TrackingPlanViolation`` is logged once per
/// processor (at most ``maximumReportedViolations``); with ``ViolationHandling/drop`` every
/// violating event is also dropped (counted as filtered).
///
/// Before `start` (e.g. in a bare `ProcessorPipeline`), warnings go to standard error.
public struct TrackingPlanProcessor: SynchronousEventProcessor {
    /// What happens to an event that breaks the plan.
    public enum ViolationHandling: Sendable, Hashable {
        /// Log each distinct violation once and send the event anyway (the default: analytics
        /// are never lost to a plan that is behind the code).
        case warn
        /// Log each distinct violation once and drop every event that has one.
        case drop
    }

    /// How many distinct violations are remembered; further ones are not reported, so that an
    /// app generating names dynamically cannot grow memory without bound.
    public static let maximumReportedViolations = 1000

    /// The plan events are checked against.
    public let plan: TrackingPlan
    /// What happens to an event that breaks the plan.
    public let handling: ViolationHandling

    private let logger = Locked<any Logging>(StandardErrorLogger())
    private let reported = Locked(ReportedViolations())

    /// Creates the processor.
    ///
    /// - Parameters:
    ///   - plan: the events the app may send.
    ///   - onViolation: ``ViolationHandling/warn`` (the default) or ``ViolationHandling/drop``.
    public init(plan: TrackingPlan, onViolation: ViolationHandling = .warn) {
        self.plan = plan
        self.handling = onViolation
    }

    public func start(storage: any ProcessorStorage, logger: any Logging, emitter: any EventSending) async {
        self.logger.set(logger)
    }

    public func process(_ input: inout EventInput, context: inout EventContext) throws {
        if input.skipsReservedPrefixValidation { return }
        let violations = plan.violations(
            name: input.name,
            parameters: input.parameters.values,
            floatValue: input.floatValue
        )
        if violations.isEmpty { return }
        for violation in violations {
            report(violation, eventName: input.name)
        }
        if handling == .drop {
            throw ProcessorError.eventFiltered
        }
    }

    private func report(_ violation: TrackingPlanViolation, eventName: String) {
        let suffix = handling == .drop ? " (dropped)" : ""
        switch reported.withLock({ $0.insert(violation) }) {
        case .new:
            logger.current.log(.warning, "tracking plan: \(violation)\(suffix)", eventName: eventName)
        case .limitReached:
            logger.current.log(
                .warning,
                "tracking plan: more than \(Self.maximumReportedViolations) distinct violations; "
                    + "further ones are not reported",
                eventName: eventName
            )
        case .alreadyReported, .suppressed:
            return
        }
    }
}

extension TrackingPlanProcessor {
    /// The violations reported so far, bounded by ``maximumReportedViolations``.
    struct ReportedViolations: Sendable {
        enum Outcome { case new, alreadyReported, limitReached, suppressed }

        private var violations = Set<TrackingPlanViolation>()
        private var limitReported = false

        mutating func insert(_ violation: TrackingPlanViolation) -> Outcome {
            if violations.contains(violation) { return .alreadyReported }
            if violations.count >= TrackingPlanProcessor.maximumReportedViolations {
                if limitReported { return .suppressed }
                limitReported = true
                return .limitReached
            }
            violations.insert(violation)
            return .new
        }
    }
}
