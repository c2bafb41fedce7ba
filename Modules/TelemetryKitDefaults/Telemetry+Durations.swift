import TelemetryKitSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Telemetry {
    /// Starts measuring how long something takes; ``stopAndSendDurationEvent(_:parameters:)``
    /// sends it as an event named `eventName`.
    ///
    /// Time in the background is left out unless `includeBackgroundTime` is true. A duration
    /// may start before `initialize`; it is measured from this call.
    ///
    /// ```swift
    /// await Telemetry.startDurationEvent("Onboarding.duration")
    /// // … later
    /// await Telemetry.stopAndSendDurationEvent("Onboarding.duration", parameters: ["skipped": false])
    /// ```
    public static func startDurationEvent(
        _ eventName: String,
        parameters: EventParameters = [:],
        includeBackgroundTime: Bool = false
    ) async {
        startDuration(eventName, parameters: parameters, includeBackgroundTime: includeBackgroundTime)
    }

    /// Stops the duration `eventName` and sends it: the seconds as `floatValue` and as
    /// `TelemetryDeck.Signal.durationInSeconds`, with the start parameters under `parameters`.
    /// Nothing is sent (and a warning is logged) when no duration of that name runs.
    public static func stopAndSendDurationEvent(_ eventName: String, parameters: EventParameters = [:]) async {
        stopDuration(eventName, parameters: parameters)
    }

    /// Stops the duration `eventName` without sending anything.
    public static func cancelDurationEvent(_ eventName: String) async {
        cancelDuration(eventName)
    }

    private static func startDuration(_ eventName: String, parameters: EventParameters, includeBackgroundTime: Bool) {
        let client = state.withLock { state -> TelemetryClient? in
            if let client = state.client { return client }
            state.gathered.durations[eventName] = FacadeState.Gathered.Duration(
                parameters: parameters,
                includeBackgroundTime: includeBackgroundTime,
                startedAt: Date()
            )
            return nil
        }
        client?.startDurationEvent(eventName, parameters: parameters, includeBackgroundTime: includeBackgroundTime)
    }

    private static func stopDuration(_ eventName: String, parameters: EventParameters) {
        let (client, early) = state.withLock { state -> (TelemetryClient?, FacadeState.Gathered.Duration?) in
            if let client = state.client { return (client, nil) }
            return (nil, state.gathered.durations.removeValue(forKey: eventName))
        }
        if let client {
            client.stopAndSendDurationEvent(eventName, parameters: parameters)
            return
        }
        guard let early else {
            StandardErrorLogger().log(
                .warning,
                "stopAndSendDurationEvent: no duration named '\(eventName)' is running; nothing was sent"
            )
            return
        }
        let now = Date()
        signal(
            .durationEvent(
                eventName,
                seconds: now.timeIntervalSince(early.startedAt),
                startParameters: early.parameters,
                stopParameters: parameters,
                timestamp: now
            )
        )
    }

    private static func cancelDuration(_ eventName: String) {
        let client = state.withLock { state -> TelemetryClient? in
            if let client = state.client { return client }
            state.gathered.durations.removeValue(forKey: eventName)
            return nil
        }
        client?.cancelDurationEvent(eventName)
    }

    /// v3's earlier name of ``startDurationEvent(_:parameters:includeBackgroundTime:)``.
    @available(*, deprecated, renamed: "startDurationEvent(_:parameters:includeBackgroundTime:)")
    public static func startDurationSignal(
        _ signalName: String,
        parameters: [String: String] = [:],
        includeBackgroundTime: Bool = false
    ) {
        startDuration(signalName, parameters: EventParameters(parameters), includeBackgroundTime: includeBackgroundTime)
    }

    /// v3's earlier name of ``stopAndSendDurationEvent(_:parameters:)``; `floatValue` and
    /// `customUserID` were ignored there too (the duration is the float value).
    @available(*, deprecated, renamed: "stopAndSendDurationEvent(_:parameters:)")
    public static func stopAndSendDurationSignal(
        _ signalName: String,
        parameters: [String: String] = [:],
        floatValue _: Double? = nil,
        customUserID _: String? = nil
    ) {
        stopDuration(signalName, parameters: EventParameters(parameters))
    }

    /// v3's earlier name of ``cancelDurationEvent(_:)``.
    @available(*, deprecated, renamed: "cancelDurationEvent(_:)")
    public static func cancelDurationSignal(_ signalName: String) {
        cancelDuration(signalName)
    }
}
