public import TelemetryKit
import TelemetryKitConventions
import TelemetryKitSupport

/// Warns when an app event uses names the SDK reserves; never changes or drops the event.
///
/// It logs at `.error`, as TelemetryDeck v3 does (through the `Logging` given in `start`), when
/// - an event name or a parameter key is in the SDK's `TelemetryDeck.` namespace
///   (``SDKInfo/isReserved(_:)``): dashboards read those names as the SDK's own data;
/// - an event name or a parameter key is one of ``reservedParameterNames`` (compared
///   ignoring ASCII case): the fields of a finalized ``Event`` and TelemetryDeck's legacy keys.
///
/// Each distinct offending name or key is reported once per processor, not on every event.
/// SDK-internal events (`skipsReservedPrefixValidation`) skip the namespace check only. Run
/// it after `DefaultPrefixProcessor` so that prefixed keys are what gets checked.
///
/// Before `start` (e.g. in a bare `ProcessorPipeline`), warnings go to standard error.
public struct ValidationProcessor: SynchronousEventProcessor {
    /// How many distinct offending names are remembered; after that, further ones are not
    /// reported, so that an app generating keys dynamically cannot grow memory without bound.
    public static let maximumReportedNames = 1000

    private let logger = Locked<any Logging>(StandardErrorLogger())
    private let reported = Locked(ReportedNames())

    /// Creates the processor.
    public init() {}

    public func start(storage: any ProcessorStorage, logger: any Logging, emitter: any EventSending) async {
        self.logger.set(logger)
    }

    public func process(_ input: inout EventInput, context: inout EventContext) throws {
        validate(input)
    }

    /// Checks the name and every key; allocation-free unless something is reported.
    /// `skipsReservedPrefixValidation` (the SDK's own events) skips the namespace check only,
    /// never the list of reserved names, as in TelemetryDeck v3.
    private func validate(_ input: EventInput) {
        let checksPrefix = !input.skipsReservedPrefixValidation
        if checksPrefix && SDKInfo.isReserved(input.name) {
            report(.eventNameInReservedNamespace, input.name, eventName: input.name)
        } else if Self.reservedNameMatcher.matches(input.name) {
            report(.reservedEventName, input.name, eventName: input.name)
        }
        for key in input.parameters.keys {
            // The SDK's own duration parameter rides on app-named events (the app's prefix
            // applies to them), so it is the one reserved key an app event may carry.
            if key == DefaultParams.Event.durationInSeconds.rawValue { continue }
            if checksPrefix && SDKInfo.isReserved(key) {
                report(.parameterKeyInReservedNamespace, key, eventName: input.name)
            } else if Self.reservedNameMatcher.matches(key) {
                report(.reservedParameterName, key, eventName: input.name)
            }
        }
    }

    private func report(_ problem: Problem, _ name: String, eventName: String) {
        let outcome = reported.withLock { $0.insert(Finding(problem: problem, name: name)) }
        switch outcome {
        case .alreadyReported:
            return
        case .new:
            logger.current.log(.warning, problem.message(for: name), eventName: eventName)
        case .limitReached:
            logger.current.log(
                .warning,
                "more than \(Self.maximumReportedNames) reserved names used; further ones are not reported",
                eventName: eventName
            )
        case .suppressed:
            return
        }
    }
}

extension ValidationProcessor {
    /// What is wrong with a name.
    enum Problem: Hashable, Sendable {
        case eventNameInReservedNamespace
        case parameterKeyInReservedNamespace
        case reservedEventName
        case reservedParameterName

        func message(for name: String) -> String {
            switch self {
            case .eventNameInReservedNamespace:
                return "event name '\(name)' uses the reserved prefix '\(SDKInfo.reservedPrefix)'; "
                    + "SDK dashboards will read it as an SDK event"
            case .parameterKeyInReservedNamespace:
                return "parameter '\(name)' uses the reserved prefix '\(SDKInfo.reservedPrefix)'; "
                    + "it may replace a value the SDK sends"
            case .reservedEventName:
                return "event name '\(name)' is a reserved name; "
                    + "it collides with an event field or a legacy TelemetryDeck key of that name"
            case .reservedParameterName:
                return "parameter '\(name)' is a reserved name; "
                    + "it collides with an event field or a legacy TelemetryDeck key of that name"
            }
        }
    }

    struct Finding: Hashable, Sendable {
        var problem: Problem
        var name: String
    }

    /// The findings reported so far, bounded by ``maximumReportedNames``.
    struct ReportedNames: Sendable {
        enum Outcome { case new, alreadyReported, limitReached, suppressed }

        private var findings = Set<Finding>()
        private var limitReported = false

        mutating func insert(_ finding: Finding) -> Outcome {
            if findings.contains(finding) { return .alreadyReported }
            if findings.count >= ValidationProcessor.maximumReportedNames {
                if limitReported { return .suppressed }
                limitReported = true
                return .limitReached
            }
            findings.insert(finding)
            return .new
        }
    }
}
