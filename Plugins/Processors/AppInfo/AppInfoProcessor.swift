public import TelemetryKit

#if canImport(Darwin)
// `Bundle` is not in FoundationEssentials; on Apple platforms Foundation is part of the OS,
// so importing it costs nothing. Elsewhere there is no app bundle to read.
import Foundation
#endif

/// Adds the app's version and build number and the SDK's name and version to every event.
///
/// Each of version and build number comes from the first source that has it:
/// 1. the main bundle's `CFBundleShortVersionString` / `CFBundleVersion` (Apple platforms);
/// 2. the `appVersion` / `buildNumber` given to `init` (the configuration; the only source on Linux);
/// 3. `"0"`.
///
/// The parameters are computed once, in `init`; each event costs one
/// ``EventContext/addParameters(_:)-([String:PayloadValue])`` call.
///
/// | key | example |
/// |---|---|
/// | `TelemetryDeck.AppInfo.version` | `2.1.0` |
/// | `TelemetryDeck.AppInfo.buildNumber` | `42` |
/// | `TelemetryDeck.AppInfo.versionAndBuildNumber` | `2.1.0 (build 42)` |
/// | `TelemetryDeck.SDK.name` | `TelemetryKit` |
/// | `TelemetryDeck.SDK.version` | `1.0.0` |
/// | `TelemetryDeck.SDK.nameAndVersion` | `TelemetryKit 1.0.0` |
public struct AppInfoProcessor: SynchronousEventProcessor {
    /// The app version sent as `TelemetryDeck.AppInfo.version`.
    public let appVersion: String
    /// The build number sent as `TelemetryDeck.AppInfo.buildNumber`.
    public let buildNumber: String
    /// Everything this processor adds to an event.
    public let parameters: [String: PayloadValue]

    /// Creates the processor.
    ///
    /// - Parameters:
    ///   - appVersion: The version to send when the main bundle has none (always on Linux).
    ///   - buildNumber: The build number to send when the main bundle has none.
    public init(appVersion: String? = nil, buildNumber: String? = nil) {
        self.init(
            bundleVersion: Self.mainBundleValue(forKey: "CFBundleShortVersionString"),
            bundleBuildNumber: Self.mainBundleValue(forKey: "CFBundleVersion"),
            appVersion: appVersion,
            buildNumber: buildNumber
        )
    }

    /// Creates the processor from explicit bundle values; `init(appVersion:buildNumber:)`
    /// reads them from the main bundle.
    init(bundleVersion: String?, bundleBuildNumber: String?, appVersion: String?, buildNumber: String?) {
        let version = Self.firstNonEmpty(bundleVersion, appVersion) ?? Self.unknown
        let build = Self.firstNonEmpty(bundleBuildNumber, buildNumber) ?? Self.unknown
        self.appVersion = version
        self.buildNumber = build
        self.parameters = [
            Keys.version: .string(version),
            Keys.buildNumber: .string(build),
            Keys.versionAndBuildNumber: .string("\(version) (build \(build))"),
            Keys.sdkName: .string(SDKInfo.name),
            Keys.sdkVersion: .string(SDKInfo.version),
            Keys.sdkNameAndVersion: .string("\(SDKInfo.name) \(SDKInfo.version)"),
        ]
    }

    public func process(_ input: inout EventInput, context: inout EventContext) throws {
        context.addParameters(parameters)
    }

    /// Sent when no source has a version or build number.
    static let unknown = "0"

    private static func firstNonEmpty(_ candidates: String?...) -> String? {
        for candidate in candidates {
            if let candidate, !candidate.isEmpty { return candidate }
        }
        return nil
    }

    private static func mainBundleValue(forKey key: String) -> String? {
        #if canImport(Darwin)
        return Bundle.main.object(forInfoDictionaryKey: key) as? String
        #else
        return nil
        #endif
    }
}
