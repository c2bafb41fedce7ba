import TelemetryKitConventions

extension AppInfoProcessor {
    /// The parameter keys this processor adds.
    public enum Keys {
        public static let version = DefaultParams.AppInfo.version.rawValue
        public static let buildNumber = DefaultParams.AppInfo.buildNumber.rawValue
        /// `"<version> (build <buildNumber>)"`, e.g. `2.1.0 (build 42)`.
        public static let versionAndBuildNumber = DefaultParams.AppInfo.versionAndBuildNumber.rawValue
        public static let sdkName = DefaultParams.SDK.name.rawValue
        public static let sdkVersion = DefaultParams.SDK.version.rawValue
        /// `"<name> <version>"`, e.g. `TelemetryKit 1.0.0`.
        public static let sdkNameAndVersion = DefaultParams.SDK.nameAndVersion.rawValue
    }
}
