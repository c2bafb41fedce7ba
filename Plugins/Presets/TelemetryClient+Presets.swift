public import TelemetryKitClient

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Navigation and durations on a client: the presets that keep state between calls.
///
/// The stateless presets are event inputs (`client.event(.leadStarted(leadID: "42"))`);
/// these two need to remember something: the last navigation destination, and the
/// durations that run (in the client's `durations` tracker, persisted in
/// its storage and aware of time in the background).
extension TelemetryClient {
    /// Sends `TelemetryDeck.Navigation.pathChanged` from `source` to `destination`
    /// (fire-and-forget), and remembers `destination` for ``navigationPathChanged(to:customUserID:)``.
    public func navigationPathChanged(from source: String, to destination: String, customUserID: String? = nil) {
        navigationHistory.record(destination)
        event(.navigationPathChanged(from: source, to: destination, customUserID: customUserID))
    }

    /// Sends `TelemetryDeck.Navigation.pathChanged` from the previous destination (or "" for
    /// the first one) to `destination`.
    public func navigationPathChanged(to destination: String, customUserID: String? = nil) {
        let source = navigationHistory.advance(to: destination)
        event(.navigationPathChanged(from: source, to: destination, customUserID: customUserID))
    }

    /// Starts measuring how long something takes; ``stopAndSendDurationEvent(_:parameters:)`` sends it.
    ///
    /// Time in the background is left out unless `includeBackgroundTime` is true; running
    /// durations survive a restart (they are kept in the client's storage).
    ///
    /// ```swift
    /// client.startDurationEvent("Checkout.duration", parameters: ["cart": "3 items"])
    /// // … later
    /// client.stopAndSendDurationEvent("Checkout.duration", parameters: ["result": "paid"])
    /// ```
    public func startDurationEvent(
        _ name: String,
        parameters: EventParameters = [:],
        includeBackgroundTime: Bool = false,
        startedAt: Date? = nil
    ) {
        durations.startDuration(
            name,
            parameters: parameters,
            includeBackgroundTime: includeBackgroundTime,
            startedAt: startedAt
        )
    }

    /// Stops the duration `name` and sends it (fire-and-forget): the seconds, rounded to
    /// milliseconds, as `floatValue` and as `TelemetryDeck.Signal.durationInSeconds`, with
    /// the start parameters under `parameters`. Nothing is sent (and a warning is logged)
    /// when no duration of that name runs.
    public func stopAndSendDurationEvent(_ name: String, parameters: EventParameters = [:]) {
        let now = clock.now
        guard let result = durations.stopDuration(name, at: now) else {
            logger.log(.warning, "stopAndSendDurationEvent: no duration named '\(name)' is running; nothing was sent")
            return
        }
        event(
            .durationEvent(
                name,
                seconds: result.durationInSeconds,
                startParameters: result.startParameters,
                stopParameters: parameters,
                timestamp: now
            )
        )
    }

    /// Stops the duration `name` without sending anything.
    public func cancelDurationEvent(_ name: String) {
        durations.cancelDuration(name)
    }

    /// The names of the durations running now, sorted.
    public var runningDurationEvents: [String] {
        durations.runningNames
    }
}
