import TelemetryKitConventions

extension SessionTrackingProcessor {
    /// The event names, parameter keys and storage key this processor uses.
    public enum Keys {
        /// Sent at the start of every session when `sendSessionStartedEvent` is on.
        public static let sessionStartedEvent = DefaultEvents.Session.started.rawValue
        /// Sent once, on the first launch of a fresh install.
        public static let newInstallDetectedEvent = DefaultEvents.Acquisition.newInstallDetected.rawValue

        /// Int: sessions across all launches, including pruned ones.
        public static let totalSessionsCount = DefaultParams.Retention.totalSessionsCount.rawValue
        /// Int: calendar days with a session start or an event, including pruned ones.
        public static let distinctDaysUsed = DefaultParams.Retention.distinctDaysUsed.rawValue
        /// Int: calendar days used within the last 30 days (today included).
        public static let distinctDaysUsedLastMonth = DefaultParams.Retention.distinctDaysUsedLastMonth.rawValue
        /// Int: mean length of the finished sessions still in the history; -1 with only one session.
        public static let averageSessionSeconds = DefaultParams.Retention.averageSessionSeconds.rawValue
        /// Int: length of the session before the current one; only present from the second session on.
        public static let previousSessionSeconds = DefaultParams.Retention.previousSessionSeconds.rawValue
        /// String: calendar date of the first session, `yyyy-MM-dd`.
        public static let firstSessionDate = DefaultParams.Acquisition.firstSessionDate.rawValue
        /// Bool: true only on the first event of the first session of a fresh install.
        public static let isNewInstall = DefaultParams.Acquisition.isNewInstall.rawValue

        /// The `ProcessorStorage` key of the persisted session history (JSON `Data`).
        public static let historyStorageKey = "TelemetryKit.SessionTracking.history"
        /// The `ProcessorStorage` key of the current session's record for other processes
        /// (JSON `Data`: id, start, last activity, process id); see "Several processes" on
        /// ``SessionTrackingProcessor``.
        public static let activeSessionStorageKey = "TelemetryKit.SessionTracking.activeSession"
    }
}
