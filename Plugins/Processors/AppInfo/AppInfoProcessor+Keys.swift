extension AppInfoProcessor {
    /// The parameter keys this processor adds.
    public enum Keys {
        public static let version = "TelemetryDeck.AppInfo.version"
        public static let buildNumber = "TelemetryDeck.AppInfo.buildNumber"
        /// `"<version> (build <buildNumber>)"`, e.g. `2.1.0 (build 42)`.
        public static let versionAndBuildNumber = "TelemetryDeck.AppInfo.versionAndBuildNumber"
        public static let sdkName = "TelemetryDeck.SDK.name"
        public static let sdkVersion = "TelemetryDeck.SDK.version"
        /// `"<name> <version>"`, e.g. `TelemetryKit 1.0.0`.
        public static let sdkNameAndVersion = "TelemetryDeck.SDK.nameAndVersion"
    }
}
