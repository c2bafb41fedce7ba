public import TelemetryKit

/// Adds the configured default parameters to every event; an event's own parameters win.
///
/// The defaults are merged *into the event's parameters* (under the per-event values), not
/// into the context metadata. They are the app's own parameters, so the processors that run
/// next treat them like any other custom parameter: `DefaultPrefixProcessor` prefixes their
/// keys and `ValidationProcessor` checks them. As event parameters they also win over the
/// metadata that SDK processors add under the same key, just as a per-event value would.
///
/// ```swift
/// let defaults = DefaultParametersProcessor(parameters: ["plan": "pro", "build": 42])
/// // event("Screen.shown", parameters: ["plan": "trial"]) → plan = trial, build = 42
/// ```
public struct DefaultParametersProcessor: SynchronousEventProcessor {
    /// The parameters added to every event.
    public let defaultParameters: EventParameters

    /// Creates the processor.
    ///
    /// - Parameter defaultParameters: Parameters for every event; a per-event parameter with
    ///   the same key replaces the default.
    public init(parameters defaultParameters: EventParameters = [:]) {
        self.defaultParameters = defaultParameters
    }

    public func process(_ input: inout EventInput, context: inout EventContext) throws {
        if defaultParameters.isEmpty { return }
        // `merging` shares storage when either side is empty: no copy for parameterless events.
        input.parameters = defaultParameters.merging(input.parameters)
    }
}
