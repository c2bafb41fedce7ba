import TelemetryKitSupport

extension TelemetryClient {
    /// Turns all analytics off or on again; persisted, and read again at `start()`.
    ///
    /// While disabled, nothing is processed, cached or sent: events are dropped as they
    /// arrive (counted in ``droppedWhileAnalyticsDisabled``), and so are events still
    /// waiting in the intake. Disabling also empties every destination's cache and the
    /// events it holds in memory while its cache fails, so that events sent before the user
    /// opted out are not delivered afterwards. Enabling again affects only later events;
    /// dropped events are gone for good.
    ///
    /// Returns once the change is in effect (caches purged) and on disk (the storage flushed). Calls
    /// take effect in the order they were made.
    ///
    /// ```swift
    /// await client.setAnalyticsDisabled(!userAllowsAnalytics)
    /// ```
    public func setAnalyticsDisabled(_ disabled: Bool) async {
        await features.settings.run { [self] in
            features.setAnalyticsDisabled(disabled)
            if disabled {
                // Let events sent before the switch reach the caches (or be dropped), then purge.
                await waitUntilProcessed()
                await purgeCaches()
            }
            await storage.set(disabled, forKey: TelemetryStorageKeys.analyticsDisabled)
            // On disk before the call returns: a program that exits right after opting out
            // must not send at its next launch.
            await storage.flush()
        }
    }

    /// Whether analytics are disabled (see ``setAnalyticsDisabled(_:)``).
    public var isAnalyticsDisabled: Bool {
        features.analyticsDisabled
    }

    /// Events dropped because analytics were disabled, since this client was created.
    public var droppedWhileAnalyticsDisabled: Int {
        features.droppedWhileDisabled
    }

    private func purgeCaches() async {
        var purged = 0
        for dispatcher in dispatchers {
            purged += await dispatcher.purge()
        }
        if purged > 0 {
            logger.log(.info, "analytics disabled: \(purged) queued event(s) were discarded")
        }
    }
}
