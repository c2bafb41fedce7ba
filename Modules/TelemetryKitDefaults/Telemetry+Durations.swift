#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Telemetry {
    /// A duration started before `initialize`.
    private struct EarlyDuration: Sendable {
        var parameters: EventParameters
        var includeBackgroundTime: Bool
        var startedAt: Date
    }

    private static let earlyDurations = Locked([String: EarlyDuration]())

    /// Starts measuring how long something takes; `stopAndSendDurationEvent` sends it.
    ///
    /// Background time is left out unless `includeBackgroundTime` is true, and running
    /// durations survive a restart (see `TelemetryClient.startDurationEvent`). Before
    /// `initialize`, the start time is kept and handed to the client by the next duration
    /// call after `initialize` (background time before `initialize` is not known).
    ///
    /// ```swift
    /// Telemetry.startDurationEvent("Onboarding.duration")
    /// // … later
    /// Telemetry.stopAndSendDurationEvent("Onboarding.duration", parameters: ["steps": 4])
    /// ```
    public static func startDurationEvent(
        _ name: String,
        parameters: EventParameters = [:],
        includeBackgroundTime: Bool = false
    ) {
        if let client = clientAdoptingEarlyDurations() {
            client.startDurationEvent(name, parameters: parameters, includeBackgroundTime: includeBackgroundTime)
            return
        }
        earlyDurations.withLock {
            $0[name] = EarlyDuration(
                parameters: parameters,
                includeBackgroundTime: includeBackgroundTime,
                startedAt: Date()
            )
        }
    }

    /// Stops the duration `name` and sends it (fire-and-forget): the seconds, rounded to
    /// milliseconds, as `floatValue` and as `TelemetryDeck.Signal.durationInSeconds`, with
    /// the start parameters laid under `parameters`. Nothing is sent, and a warning is
    /// logged, when no duration of that name runs.
    public static func stopAndSendDurationEvent(_ name: String, parameters: EventParameters = [:]) {
        if let client = clientAdoptingEarlyDurations() {
            client.stopAndSendDurationEvent(name, parameters: parameters)
            return
        }
        guard let early = earlyDurations.withLock({ $0.removeValue(forKey: name) }) else {
            StandardErrorLogger().log(
                .warning,
                "stopAndSendDurationEvent: no duration named '\(name)' is running; nothing was sent"
            )
            return
        }
        let now = Date()
        signal(
            TelemetryPresets.durationEvent(
                name,
                seconds: now.timeIntervalSince(early.startedAt),
                startParameters: early.parameters,
                stopParameters: parameters,
                timestamp: now
            )
        )
    }

    /// Stops the duration `name` without sending anything.
    public static func cancelDurationEvent(_ name: String) {
        earlyDurations.withLock { _ = $0.removeValue(forKey: name) }
        clientAdoptingEarlyDurations()?.cancelDurationEvent(name)
    }

    /// The running client, after moving durations started before `initialize` into it.
    private static func clientAdoptingEarlyDurations() -> TelemetryClient? {
        guard let client else { return nil }
        let early = earlyDurations.withLock { early -> [String: EarlyDuration] in
            defer { early = [:] }
            return early
        }
        for (name, duration) in early {
            client.startDurationEvent(
                name,
                parameters: duration.parameters,
                includeBackgroundTime: duration.includeBackgroundTime,
                startedAt: duration.startedAt
            )
        }
        return client
    }
}
