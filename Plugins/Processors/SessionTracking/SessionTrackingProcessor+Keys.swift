extension SessionTrackingProcessor {
    /// The event names, parameter keys and storage key this processor uses.
    public enum Keys {
        /// Sent at the start of every session when `sendSessionStartedEvent` is on.
        public static let sessionStartedEvent = "TelemetryDeck.Session.started"
        /// Sent once, on the first launch of a fresh install.
        public static let newInstallDetectedEvent = "TelemetryDeck.Acquisition.newInstallDetected"

        /// Int: sessions across all launches, including pruned ones.
        public static let totalSessionsCount = "TelemetryDeck.Retention.totalSessionsCount"
        /// Int: calendar days with a session start or an event, including pruned ones.
        public static let distinctDaysUsed = "TelemetryDeck.Retention.distinctDaysUsed"
        /// Int: calendar days used within the last 30 days (today included).
        public static let distinctDaysUsedLastMonth = "TelemetryDeck.Retention.distinctDaysUsedLastMonth"
        /// Int: mean length of the finished sessions still in the history; -1 with only one session.
        public static let averageSessionSeconds = "TelemetryDeck.Retention.averageSessionSeconds"
        /// Int: length of the session before the current one; only present from the second session on.
        public static let previousSessionSeconds = "TelemetryDeck.Retention.previousSessionSeconds"
        /// String: calendar date of the first session, `yyyy-MM-dd`.
        public static let firstSessionDate = "TelemetryDeck.Acquisition.firstSessionDate"
        /// Bool: true only on the first event of the first session of a fresh install.
        public static let isNewInstall = "TelemetryDeck.Acquisition.isNewInstall"

        /// The `ProcessorStorage` key of the persisted session history (JSON `Data`).
        public static let historyStorageKey = "TelemetryKit.SessionTracking.history"
        /// The `ProcessorStorage` key of the current session's record for other processes
        /// (JSON `Data`: id, start, last activity, process id); see "Several processes" on
        /// ``SessionTrackingProcessor``.
        public static let activeSessionStorageKey = "TelemetryKit.SessionTracking.activeSession"
    }
}
