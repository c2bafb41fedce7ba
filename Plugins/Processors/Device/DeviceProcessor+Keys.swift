import TelemetryKitConventions

extension DeviceProcessor {
    /// The parameter keys this processor adds, as the TelemetryDeck ingest API names them.
    public enum Keys {
        /// The platform the app runs on, e.g. `iOS`, `macOS`, `Linux` (String).
        public static let platform = DefaultParams.Device.platform.rawValue
        /// The operating system, e.g. `iOS`, `macOS`, `Linux` (String).
        public static let operatingSystem = DefaultParams.Device.operatingSystem.rawValue
        /// The operating system and its full version, e.g. `iOS 18.0.0`, `Linux 12` (String).
        public static let systemVersion = DefaultParams.Device.systemVersion.rawValue
        /// The operating system and its major version, e.g. `iOS 18`, `Linux 12` (String).
        public static let systemMajorVersion = DefaultParams.Device.systemMajorVersion.rawValue
        /// The operating system and its major.minor version, e.g. `iOS 18.0`, `Linux 12.0` (String).
        public static let systemMajorMinorVersion = DefaultParams.Device.systemMajorMinorVersion.rawValue
        /// The hardware model, e.g. `iPhone16,2`, `Mac14,2`, `Standard PC (Q35 + ICH9, 2009)` (String).
        public static let modelName = DefaultParams.Device.modelName.rawValue
        /// The machine architecture, e.g. `arm64`, `x86_64`; the model identifier on iOS (String).
        public static let architecture = DefaultParams.Device.architecture.rawValue
        /// The UTC offset at the event's time, e.g. `UTC+2`, `UTC+5:30`, `UTC-9:30` (String).
        public static let timeZone = DefaultParams.Device.timeZone.rawValue
        /// Whether the app runs in a simulator (Bool).
        public static let isSimulator = DefaultParams.RunContext.isSimulator.rawValue
        /// Whether the SDK was built in the DEBUG configuration (Bool).
        public static let isDebug = DefaultParams.RunContext.isDebug.rawValue
        /// Whether the app was installed through TestFlight (Bool).
        public static let isTestFlight = DefaultParams.RunContext.isTestFlight.rawValue
        /// Whether the app was installed from the App Store (Bool).
        public static let isAppStore = DefaultParams.RunContext.isAppStore.rawValue
        /// `native`, `simulator` or `macCatalyst` (String).
        public static let targetEnvironment = DefaultParams.RunContext.targetEnvironment.rawValue
        /// The extension point of an app extension (String; Apple platforms, extensions only).
        public static let extensionIdentifier = DefaultParams.RunContext.extensionIdentifier.rawValue

        /// Every key, in the order of the spec's table (the extension identifier, which only
        /// extensions send, is not in it).
        public static let all: [String] = [
            platform, operatingSystem, systemVersion, systemMajorVersion, systemMajorMinorVersion, modelName,
            architecture, timeZone, isSimulator, isDebug, isTestFlight, isAppStore, targetEnvironment,
        ]
    }
}
