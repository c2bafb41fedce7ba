import TelemetryKitSupport
extension Telemetry {
    /// Turns all analytics off or on again; persisted in the processor storage and read at
    /// the next `initialize`.
    ///
    /// While disabled, nothing is processed, cached or sent; disabling also discards what
    /// is queued (the caches, and events buffered before `initialize`). Enabling again
    /// affects only later events. Works before `initialize` too: the choice then applies
    /// to the client as it starts (and is persisted then).
    ///
    /// ```swift
    /// await Telemetry.setAnalyticsDisabled(!settings.shareAnalytics)
    /// ```
    public static func setAnalyticsDisabled(_ disabled: Bool) async {
        let client = state.withLock { state -> TelemetryClient? in
            if let client = state.client {
                return client
            }
            state.gathered.analyticsChoice = disabled
            if disabled {
                state.droppedWhileDisabled += state.gathered.events.removeAll().count
            }
            return nil
        }
        await client?.setAnalyticsDisabled(disabled)
    }

    /// Whether analytics are disabled right now.
    public static var isAnalyticsDisabled: Bool {
        get async {
            let (client, choice) = state.withLock { ($0.client, $0.gathered.analyticsChoice) }
            return client?.isAnalyticsDisabled ?? (choice ?? false)
        }
    }

    /// Events dropped because analytics were disabled (before `initialize` and by the client).
    public static var droppedWhileAnalyticsDisabled: Int {
        let (client, before) = state.withLock { ($0.client, $0.droppedWhileDisabled) }
        return before + (client?.droppedWhileAnalyticsDisabled ?? 0)
    }

    /// Hands a choice made before `initialize` to the new client, before it starts. A choice
    /// made from here on, until the client runs, is handed over after the replay.
    ///
    /// - Returns: the choice applied, for `abandonStart(of:analyticsChoice:)` to put back.
    static func applyAnalyticsChoiceBeforeStart(to client: TelemetryClient) async -> Bool? {
        let choice = state.withLock { state -> Bool? in
            defer { state.gathered.analyticsChoice = nil }
            return state.gathered.analyticsChoice
        }
        if let choice {
            await client.setAnalyticsDisabled(choice)
        }
        return choice
    }
}
