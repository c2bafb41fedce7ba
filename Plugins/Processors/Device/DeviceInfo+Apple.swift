#if canImport(Darwin)
import Darwin
import Foundation

extension DeviceInfo {
    /// The facts of the running Apple device, from `ProcessInfo`, `sysctl` and the bundle.
    static func apple() -> DeviceInfo {
        let version = ProcessInfo.processInfo.operatingSystemVersion
        let system = appleOperatingSystem
        let machine = sysctlString("hw.machine") ?? KernelIdentity.current().machine

        #if targetEnvironment(simulator)
        let isSimulator = true
        let model = ProcessInfo.processInfo.environment["SIMULATOR_MODEL_IDENTIFIER"] ?? machine
        let environment = "simulator"
        #elseif targetEnvironment(macCatalyst)
        let isSimulator = false
        let model = sysctlString("hw.model") ?? machine
        let environment = "macCatalyst"
        #elseif os(macOS)
        let isSimulator = false
        let model = sysctlString("hw.model") ?? machine
        let environment = "native"
        #else
        let isSimulator = false
        let model = machine
        let environment = "native"
        #endif

        let isDebug = DeviceInfo.isDebugBuild
        // TestFlight builds carry a sandbox receipt; App Store builds a production one.
        let receiptURL = Bundle.main.appStoreReceiptURL
        let isTestFlight = !isSimulator && receiptURL?.lastPathComponent == "sandboxReceipt"
        #if os(macOS) || targetEnvironment(macCatalyst)
        // Mac apps from outside the App Store (Developer ID, local builds) have no receipt.
        let hasReceipt = receiptURL.map { FileManager.default.fileExists(atPath: $0.path) } ?? false
        #else
        let hasReceipt = true
        #endif
        let isAppStore = !isDebug && !isSimulator && !isTestFlight && hasReceipt

        return DeviceInfo(
            platform: applePlatform,
            operatingSystem: system,
            systemVersion: "\(system) \(version.majorVersion).\(version.minorVersion).\(version.patchVersion)",
            systemMajorVersion: "\(system) \(version.majorVersion)",
            systemMajorMinorVersion: "\(system) \(version.majorVersion).\(version.minorVersion)",
            modelName: model,
            architecture: machine,
            isSimulator: isSimulator,
            isDebug: isDebug,
            isTestFlight: isTestFlight,
            isAppStore: isAppStore,
            targetEnvironment: environment,
            extensionIdentifier: extensionPointIdentifier(infoDictionary: Bundle.main.infoDictionary)
        )
    }

    private static var applePlatform: String {
        #if targetEnvironment(macCatalyst)
        return "macCatalyst"
        #else
        return appleOperatingSystem
        #endif
    }

    private static var appleOperatingSystem: String {
        #if os(macOS) || targetEnvironment(macCatalyst)
        return "macOS"
        #elseif os(visionOS)
        return "visionOS"
        #elseif os(iOS)
        return "iOS"
        #elseif os(tvOS)
        return "tvOS"
        #elseif os(watchOS)
        return "watchOS"
        #else
        return "Darwin"
        #endif
    }

    /// A string-valued `sysctl`, e.g. `hw.machine` (`arm64`, `iPhone16,2`) or `hw.model`.
    private static func sysctlString(_ name: String) -> String? {
        var size = 0
        guard sysctlbyname(name, nil, &size, nil, 0) == 0, size > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: size)
        guard sysctlbyname(name, &buffer, &size, nil, 0) == 0 else { return nil }
        let value = String(decoding: buffer.prefix { $0 != 0 }, as: UTF8.self)
        return value.isEmpty ? nil : value
    }
}
#endif
