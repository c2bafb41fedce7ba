extension Telemetry {
    /// The choice made before `initialize` (nil: none; the persisted one applies).
    private static let analyticsChoiceBeforeInitialize = Locked<Bool?>(nil)
    private static let droppedBeforeInitializeWhileDisabled = Locked(0)

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
        if let client {
            // A newer choice than one made before initialize, which must not be applied later.
            analyticsChoiceBeforeInitialize.set(nil)
            await client.setAnalyticsDisabled(disabled)
            return
        }
        analyticsChoiceBeforeInitialize.set(disabled)
        if disabled {
            let discarded = discardBufferedEvents()
            droppedBeforeInitializeWhileDisabled.withLock { $0 += discarded }
        }
        // `initialize` may have finished meanwhile, after it applied the earlier choice.
        if let client {
            analyticsChoiceBeforeInitialize.set(nil)
            await client.setAnalyticsDisabled(disabled)
        }
    }

    /// Whether analytics are disabled right now.
    public static var isAnalyticsDisabled: Bool {
        get async {
            client?.isAnalyticsDisabled ?? (analyticsChoiceBeforeInitialize.current ?? false)
        }
    }

    /// Events dropped because analytics were disabled (before `initialize` and by the client).
    public static var droppedWhileAnalyticsDisabled: Int {
        droppedBeforeInitializeWhileDisabled.current + (client?.droppedWhileAnalyticsDisabled ?? 0)
    }

    /// Drops an event sent before `initialize` while analytics are disabled.
    static func dropsBeforeInitialize() -> Bool {
        guard analyticsChoiceBeforeInitialize.current == true else { return false }
        droppedBeforeInitializeWhileDisabled.withLock { $0 += 1 }
        return true
    }

    /// Hands a choice made before `initialize` to the new client, before it starts.
    static func applyAnalyticsChoiceBeforeStart(to client: TelemetryClient) async {
        let choice = analyticsChoiceBeforeInitialize.withLock { choice -> Bool? in
            defer { choice = nil }
            return choice
        }
        if let choice {
            await client.setAnalyticsDisabled(choice)
        }
    }
}
