public import TelemetryKit

/// The hardware and platform facts that ``DeviceProcessor`` sends, gathered once.
///
/// ``current()`` reads the running system: on Apple platforms from `ProcessInfo`, `sysctl`
/// and the bundle; elsewhere with ``linux(fileSystemRoot:kernel:isDebug:)``. Build one by
/// hand to pin the values (tests, previews, servers that report a fixed identity).
public struct DeviceInfo: Sendable, Hashable {
    /// `iOS`, `macOS`, `macCatalyst`, `tvOS`, `watchOS`, `visionOS` or `Linux`.
    public var platform: String
    /// `iOS`, `macOS`, `tvOS`, `watchOS`, `visionOS` or `Linux`.
    public var operatingSystem: String
    /// The operating system and its version, e.g. `iOS 18.0.0`, `Linux 12`.
    public var systemVersion: String
    /// The operating system and its major version, e.g. `iOS 18`, `Linux 12`.
    public var systemMajorVersion: String
    /// The operating system and its major.minor version, e.g. `iOS 18.0`, `Linux 12.0`.
    public var systemMajorMinorVersion: String
    /// The hardware model, e.g. `iPhone16,2`, `Mac14,2`.
    public var modelName: String
    /// The machine architecture, e.g. `arm64`, `x86_64` (the model identifier on iOS).
    public var architecture: String
    /// Whether the app runs in a simulator.
    public var isSimulator: Bool
    /// Whether this module was compiled in the DEBUG configuration.
    public var isDebug: Bool
    /// Whether the app was installed through TestFlight.
    public var isTestFlight: Bool
    /// Whether the app was installed from the App Store.
    public var isAppStore: Bool
    /// `native`, `simulator` or `macCatalyst`.
    public var targetEnvironment: String
    /// The extension point of an app extension (e.g. `com.apple.widgetkit-extension`); nil
    /// in an app, and everywhere without bundles (Linux).
    public var extensionIdentifier: String?

    /// Creates device facts from explicit values.
    public init(
        platform: String,
        operatingSystem: String,
        systemVersion: String,
        systemMajorVersion: String,
        systemMajorMinorVersion: String,
        modelName: String,
        architecture: String,
        isSimulator: Bool,
        isDebug: Bool,
        isTestFlight: Bool,
        isAppStore: Bool,
        targetEnvironment: String,
        extensionIdentifier: String? = nil
    ) {
        self.platform = platform
        self.operatingSystem = operatingSystem
        self.systemVersion = systemVersion
        self.systemMajorVersion = systemMajorVersion
        self.systemMajorMinorVersion = systemMajorMinorVersion
        self.modelName = modelName
        self.architecture = architecture
        self.isSimulator = isSimulator
        self.isDebug = isDebug
        self.isTestFlight = isTestFlight
        self.isAppStore = isAppStore
        self.targetEnvironment = targetEnvironment
        self.extensionIdentifier = extensionIdentifier
    }

    /// The extension point named by a bundle's `NSExtension` info entry, if it has one.
    public static func extensionPointIdentifier(infoDictionary: [String: Any]?) -> String? {
        guard let info = infoDictionary?["NSExtension"] as? [String: Any],
            let point = info["NSExtensionPointIdentifier"] as? String, !point.isEmpty
        else { return nil }
        return point
    }

    /// Whether this module was compiled with `DEBUG` defined.
    ///
    /// This is the SDK's build configuration, which matches the app's when both are built
    /// from source in one configuration (the usual SwiftPM setup).
    public static var isDebugBuild: Bool {
        #if DEBUG
        return true
        #else
        return false
        #endif
    }

    /// The facts of the running system.
    public static func current() -> DeviceInfo {
        #if canImport(Darwin)
        return apple()
        #else
        return linux()
        #endif
    }

    /// The facts as payload values under ``DeviceProcessor/Keys`` (without the time zone,
    /// which depends on the event's time).
    public var parameters: [String: PayloadValue] {
        var parameters: [String: PayloadValue] = [
            DeviceProcessor.Keys.platform: .string(platform),
            DeviceProcessor.Keys.operatingSystem: .string(operatingSystem),
            DeviceProcessor.Keys.systemVersion: .string(systemVersion),
            DeviceProcessor.Keys.systemMajorVersion: .string(systemMajorVersion),
            DeviceProcessor.Keys.systemMajorMinorVersion: .string(systemMajorMinorVersion),
            DeviceProcessor.Keys.modelName: .string(modelName),
            DeviceProcessor.Keys.architecture: .string(architecture),
            DeviceProcessor.Keys.isSimulator: .bool(isSimulator),
            DeviceProcessor.Keys.isDebug: .bool(isDebug),
            DeviceProcessor.Keys.isTestFlight: .bool(isTestFlight),
            DeviceProcessor.Keys.isAppStore: .bool(isAppStore),
            DeviceProcessor.Keys.targetEnvironment: .string(targetEnvironment),
        ]
        parameters[DeviceProcessor.Keys.extensionIdentifier] = extensionIdentifier.map(PayloadValue.string)
        return parameters
    }
}
