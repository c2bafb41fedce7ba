/// The parameter keys the SDK's processors and presets write, as TelemetryDeck's dashboards
/// expect them (`TelemetryDeck.<Group>.<name>`).
///
/// Each case is a `String` raw value; `EventParameters` and `EventContext` take the cases
/// directly:
///
/// ```swift
/// var parameters: EventParameters = [:]
/// parameters[DefaultParams.Activation.featureName] = "export"
/// ```
///
/// Each key string is written here only: the processors' `Keys` constants are these raw values,
/// and the presets write them. Its own module (like OpenTelemetry's semantic conventions), so
/// that processors share the vocabulary without depending on each other or on the presets.
public enum DefaultParams {
    public enum Device: String, Sendable, CaseIterable {
        case platform = "TelemetryDeck.Device.platform"
        case operatingSystem = "TelemetryDeck.Device.operatingSystem"
        case systemVersion = "TelemetryDeck.Device.systemVersion"
        case systemMajorVersion = "TelemetryDeck.Device.systemMajorVersion"
        case systemMajorMinorVersion = "TelemetryDeck.Device.systemMajorMinorVersion"
        case modelName = "TelemetryDeck.Device.modelName"
        case architecture = "TelemetryDeck.Device.architecture"
        case timeZone = "TelemetryDeck.Device.timeZone"
        case screenResolutionWidth = "TelemetryDeck.Device.screenResolutionWidth"
        case screenResolutionHeight = "TelemetryDeck.Device.screenResolutionHeight"
        case orientation = "TelemetryDeck.Device.orientation"
        case screenScaleFactor = "TelemetryDeck.Device.screenScaleFactor"
    }

    public enum RunContext: String, Sendable, CaseIterable {
        case isSimulator = "TelemetryDeck.RunContext.isSimulator"
        case isDebug = "TelemetryDeck.RunContext.isDebug"
        case isTestFlight = "TelemetryDeck.RunContext.isTestFlight"
        case isAppStore = "TelemetryDeck.RunContext.isAppStore"
        case targetEnvironment = "TelemetryDeck.RunContext.targetEnvironment"
        case locale = "TelemetryDeck.RunContext.locale"
        case language = "TelemetryDeck.RunContext.language"
        case extensionIdentifier = "TelemetryDeck.RunContext.extensionIdentifier"
    }

    public enum AppInfo: String, Sendable, CaseIterable {
        case version = "TelemetryDeck.AppInfo.version"
        case buildNumber = "TelemetryDeck.AppInfo.buildNumber"
        case versionAndBuildNumber = "TelemetryDeck.AppInfo.versionAndBuildNumber"
    }

    public enum SDK: String, Sendable, CaseIterable {
        case name = "TelemetryDeck.SDK.name"
        case version = "TelemetryDeck.SDK.version"
        case nameAndVersion = "TelemetryDeck.SDK.nameAndVersion"
    }

    public enum UserPreference: String, Sendable, CaseIterable {
        case language = "TelemetryDeck.UserPreference.language"
        case region = "TelemetryDeck.UserPreference.region"
        case colorScheme = "TelemetryDeck.UserPreference.colorScheme"
        case layoutDirection = "TelemetryDeck.UserPreference.layoutDirection"
    }

    public enum Accessibility: String, Sendable, CaseIterable {
        case isBoldTextEnabled = "TelemetryDeck.Accessibility.isBoldTextEnabled"
        case isReduceMotionEnabled = "TelemetryDeck.Accessibility.isReduceMotionEnabled"
        case preferredContentSizeCategory = "TelemetryDeck.Accessibility.preferredContentSizeCategory"
        case isInvertColorsEnabled = "TelemetryDeck.Accessibility.isInvertColorsEnabled"
        case isDarkerSystemColorsEnabled = "TelemetryDeck.Accessibility.isDarkerSystemColorsEnabled"
        case isReduceTransparencyEnabled = "TelemetryDeck.Accessibility.isReduceTransparencyEnabled"
        case shouldDifferentiateWithoutColor = "TelemetryDeck.Accessibility.shouldDifferentiateWithoutColor"
    }

    public enum Calendar: String, Sendable, CaseIterable {
        case dayOfMonth = "TelemetryDeck.Calendar.dayOfMonth"
        case dayOfWeek = "TelemetryDeck.Calendar.dayOfWeek"
        case dayOfYear = "TelemetryDeck.Calendar.dayOfYear"
        case weekOfYear = "TelemetryDeck.Calendar.weekOfYear"
        case isWeekend = "TelemetryDeck.Calendar.isWeekend"
        case monthOfYear = "TelemetryDeck.Calendar.monthOfYear"
        case quarterOfYear = "TelemetryDeck.Calendar.quarterOfYear"
        case hourOfDay = "TelemetryDeck.Calendar.hourOfDay"
    }

    public enum Retention: String, Sendable, CaseIterable {
        case totalSessionsCount = "TelemetryDeck.Retention.totalSessionsCount"
        case distinctDaysUsed = "TelemetryDeck.Retention.distinctDaysUsed"
        case distinctDaysUsedLastMonth = "TelemetryDeck.Retention.distinctDaysUsedLastMonth"
        case averageSessionSeconds = "TelemetryDeck.Retention.averageSessionSeconds"
        case previousSessionSeconds = "TelemetryDeck.Retention.previousSessionSeconds"
    }

    public enum Acquisition: String, Sendable, CaseIterable {
        case channel = "TelemetryDeck.Acquisition.channel"
        case leadID = "TelemetryDeck.Acquisition.leadID"
        case firstSessionDate = "TelemetryDeck.Acquisition.firstSessionDate"
        case isNewInstall = "TelemetryDeck.Acquisition.isNewInstall"
    }

    public enum Activation: String, Sendable, CaseIterable {
        case featureName = "TelemetryDeck.Activation.featureName"
    }

    public enum Referral: String, Sendable, CaseIterable {
        case receiversCount = "TelemetryDeck.Referral.receiversCount"
        case kind = "TelemetryDeck.Referral.kind"
        case ratingValue = "TelemetryDeck.Referral.ratingValue"
        case ratingComment = "TelemetryDeck.Referral.ratingComment"
    }

    public enum Revenue: String, Sendable, CaseIterable {
        case paywallShowReason = "TelemetryDeck.Revenue.paywallShowReason"
    }

    public enum Purchase: String, Sendable, CaseIterable {
        case type = "TelemetryDeck.Purchase.type"
        case countryCode = "TelemetryDeck.Purchase.countryCode"
        case currencyCode = "TelemetryDeck.Purchase.currencyCode"
        case productID = "TelemetryDeck.Purchase.productID"
    }

    public enum Navigation: String, Sendable, CaseIterable {
        case schemaVersion = "TelemetryDeck.Navigation.schemaVersion"
        case identifier = "TelemetryDeck.Navigation.identifier"
        case sourcePath = "TelemetryDeck.Navigation.sourcePath"
        case destinationPath = "TelemetryDeck.Navigation.destinationPath"
    }

    public enum Error: String, Sendable, CaseIterable {
        case id = "TelemetryDeck.Error.id"
        case category = "TelemetryDeck.Error.category"
        case message = "TelemetryDeck.Error.message"
    }

    public enum Event: String, Sendable, CaseIterable {
        case durationInSeconds = "TelemetryDeck.Signal.durationInSeconds"
    }
}
