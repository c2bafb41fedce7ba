#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension TelemetryClient {
    /// Starts measuring how long something takes; `stopAndSendDurationEvent` sends it.
    ///
    /// The duration is measured with the client's clock. Time in the background (between
    /// the lifecycle's `.didEnterBackground` and `.willEnterForeground`, and while the app
    /// was not running) is left out unless `includeBackgroundTime` is true. Running
    /// durations are kept in the client's storage, so a duration started before a restart
    /// can be stopped after it. Starting a name that is already running starts it afresh.
    ///
    /// ```swift
    /// client.startDurationEvent("Checkout.duration", parameters: ["cart": "3 items"])
    /// // … later
    /// client.stopAndSendDurationEvent("Checkout.duration", parameters: ["result": "paid"])
    /// ```
    ///
    /// - Parameters:
    ///   - name: the event name sent when the duration stops; identifies the duration.
    ///   - parameters: sent with the event; stop parameters win on a collision.
    ///   - includeBackgroundTime: count time in the background too.
    public func startDurationEvent(
        _ name: String,
        parameters: EventParameters = [:],
        includeBackgroundTime: Bool = false
    ) {
        features.durations.start(name, parameters: parameters, includeBackgroundTime: includeBackgroundTime)
    }

    /// Starts a duration that began at `startedAt` (e.g. recorded before the client existed).
    public func startDurationEvent(
        _ name: String,
        parameters: EventParameters = [:],
        includeBackgroundTime: Bool = false,
        startedAt: Date
    ) {
        features.durations.start(
            name,
            parameters: parameters,
            includeBackgroundTime: includeBackgroundTime,
            at: startedAt
        )
    }

    /// Stops the duration `name` and sends it as an event (fire-and-forget).
    ///
    /// The event carries the seconds, rounded to milliseconds, as its `floatValue` and as
    /// the parameter `TelemetryDeck.Signal.durationInSeconds`, plus the start parameters with
    /// `parameters` laid over them. Nothing is sent (and a warning is logged) when no
    /// duration of that name runs.
    public func stopAndSendDurationEvent(_ name: String, parameters: EventParameters = [:]) {
        guard let input = features.durations.stop(name, parameters: parameters) else { return }
        event(input)
    }

    /// Stops the duration `name` without sending anything.
    public func cancelDurationEvent(_ name: String) {
        features.durations.cancel(name)
    }

    /// The names of the durations running now, sorted.
    public var runningDurationEvents: [String] {
        features.durations.runningNames
    }

    /// Waits until the running durations are written to storage (for tests and shutdown).
    public func waitUntilDurationsPersisted() async {
        await features.durations.waitUntilPersisted()
    }
}
