/// The `ProcessorStorage` keys the client itself uses, in one place.
public enum TelemetryStorageKeys {
    /// `Bool`: whether analytics are disabled (see `TelemetryClient.setAnalyticsDisabled(_:)`).
    public static let analyticsDisabled = "TelemetryKit.OptOut.analyticsDisabled"
    /// `Data` (JSON): the duration events still running, so they survive a restart.
    public static let runningDurations = "TelemetryKit.Durations.running"
}
