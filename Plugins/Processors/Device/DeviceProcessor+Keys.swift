extension DeviceProcessor {
    /// The parameter keys this processor adds, as the TelemetryDeck ingest API names them.
    public enum Keys {
        /// The platform the app runs on, e.g. `iOS`, `macOS`, `Linux` (String).
        public static let platform = "TelemetryDeck.Device.platform"
        /// The operating system, e.g. `iOS`, `macOS`, `Linux` (String).
        public static let operatingSystem = "TelemetryDeck.Device.operatingSystem"
        /// The operating system and its full version, e.g. `iOS 18.0.0`, `Linux 12` (String).
        public static let systemVersion = "TelemetryDeck.Device.systemVersion"
        /// The operating system and its major version, e.g. `iOS 18`, `Linux 12` (String).
        public static let systemMajorVersion = "TelemetryDeck.Device.systemMajorVersion"
        /// The operating system and its major.minor version, e.g. `iOS 18.0`, `Linux 12.0` (String).
        public static let systemMajorMinorVersion = "TelemetryDeck.Device.systemMajorMinorVersion"
        /// The hardware model, e.g. `iPhone16,2`, `Mac14,2`, `Standard PC (Q35 + ICH9, 2009)` (String).
        public static let modelName = "TelemetryDeck.Device.modelName"
        /// The machine architecture, e.g. `arm64`, `x86_64`; the model identifier on iOS (String).
        public static let architecture = "TelemetryDeck.Device.architecture"
        /// The UTC offset at the event's time, e.g. `UTC+2`, `UTC+5:30`, `UTC-9:30` (String).
        public static let timeZone = "TelemetryDeck.Device.timeZone"
        /// Whether the app runs in a simulator (Bool).
        public static let isSimulator = "TelemetryDeck.RunContext.isSimulator"
        /// Whether the SDK was built in the DEBUG configuration (Bool).
        public static let isDebug = "TelemetryDeck.RunContext.isDebug"
        /// Whether the app was installed through TestFlight (Bool).
        public static let isTestFlight = "TelemetryDeck.RunContext.isTestFlight"
        /// Whether the app was installed from the App Store (Bool).
        public static let isAppStore = "TelemetryDeck.RunContext.isAppStore"
        /// `native`, `simulator` or `macCatalyst` (String).
        public static let targetEnvironment = "TelemetryDeck.RunContext.targetEnvironment"
        /// The extension point of an app extension (String; Apple platforms, extensions only).
        public static let extensionIdentifier = "TelemetryDeck.RunContext.extensionIdentifier"

        /// Every key, in the order of the spec's table (the extension identifier, which only
        /// extensions send, is not in it).
        public static let all: [String] = [
            platform, operatingSystem, systemVersion, systemMajorVersion, systemMajorMinorVersion, modelName,
            architecture, timeZone, isSimulator, isDebug, isTestFlight, isAppStore, targetEnvironment,
        ]
    }
}
