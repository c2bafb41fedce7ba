public import TelemetryKit

/// Accessibility settings and display properties read at one moment.
///
/// Every field is optional: a platform reports what it has (macOS has no Bold Text or
/// Dynamic Type setting), and a missing field adds no parameter.
public struct AccessibilitySnapshot: Sendable, Hashable {
    public var isBoldTextEnabled: Bool?
    public var isReduceMotionEnabled: Bool?
    /// The short Dynamic Type name, e.g. `L` (see ``contentSizeCategoryName(rawValue:)``).
    public var preferredContentSizeCategory: String?
    /// `Dark` or `Light`.
    public var colorScheme: String?
    /// `leftToRight` or `rightToLeft`.
    public var layoutDirection: String?
    /// In points.
    public var screenResolutionWidth: Double?
    /// In points.
    public var screenResolutionHeight: Double?
    /// Whether Smart or Classic Invert is on (iOS, tvOS).
    public var isInvertColorsEnabled: Bool?
    /// Whether Increase Contrast (darker system colors) is on.
    public var isDarkerSystemColorsEnabled: Bool?
    /// Whether Reduce Transparency is on.
    public var isReduceTransparencyEnabled: Bool?
    /// Whether Differentiate Without Color is on.
    public var shouldDifferentiateWithoutColor: Bool?
    /// `portrait`, `portraitUpsideDown`, `landscapeLeft`, `landscapeRight` (iOS), see
    /// ``orientationName(isPortrait:isUpsideDown:isLandscapeLeft:)``.
    public var orientation: String?
    /// Pixels per point of the main screen.
    public var screenScaleFactor: Double?

    /// Creates a snapshot; fields left nil are not sent.
    public init(
        isBoldTextEnabled: Bool? = nil,
        isReduceMotionEnabled: Bool? = nil,
        preferredContentSizeCategory: String? = nil,
        colorScheme: String? = nil,
        layoutDirection: String? = nil,
        screenResolutionWidth: Double? = nil,
        screenResolutionHeight: Double? = nil,
        isInvertColorsEnabled: Bool? = nil,
        isDarkerSystemColorsEnabled: Bool? = nil,
        isReduceTransparencyEnabled: Bool? = nil,
        shouldDifferentiateWithoutColor: Bool? = nil,
        orientation: String? = nil,
        screenScaleFactor: Double? = nil
    ) {
        self.isBoldTextEnabled = isBoldTextEnabled
        self.isReduceMotionEnabled = isReduceMotionEnabled
        self.preferredContentSizeCategory = preferredContentSizeCategory
        self.colorScheme = colorScheme
        self.layoutDirection = layoutDirection
        self.screenResolutionWidth = screenResolutionWidth
        self.screenResolutionHeight = screenResolutionHeight
        self.isInvertColorsEnabled = isInvertColorsEnabled
        self.isDarkerSystemColorsEnabled = isDarkerSystemColorsEnabled
        self.isReduceTransparencyEnabled = isReduceTransparencyEnabled
        self.shouldDifferentiateWithoutColor = shouldDifferentiateWithoutColor
        self.orientation = orientation
        self.screenScaleFactor = screenScaleFactor
    }

    /// The snapshot as payload values under ``AccessibilityProcessor/Keys``.
    public var parameters: [String: PayloadValue] {
        typealias Keys = AccessibilityProcessor.Keys
        var parameters = [String: PayloadValue]()
        parameters[Keys.isBoldTextEnabled] = isBoldTextEnabled.map(PayloadValue.bool)
        parameters[Keys.isReduceMotionEnabled] = isReduceMotionEnabled.map(PayloadValue.bool)
        parameters[Keys.preferredContentSizeCategory] = preferredContentSizeCategory.map(PayloadValue.string)
        parameters[Keys.colorScheme] = colorScheme.map(PayloadValue.string)
        parameters[Keys.layoutDirection] = layoutDirection.map(PayloadValue.string)
        parameters[Keys.screenResolutionWidth] = screenResolutionWidth.map(PayloadValue.double)
        parameters[Keys.screenResolutionHeight] = screenResolutionHeight.map(PayloadValue.double)
        parameters[Keys.isInvertColorsEnabled] = isInvertColorsEnabled.map(PayloadValue.bool)
        parameters[Keys.isDarkerSystemColorsEnabled] = isDarkerSystemColorsEnabled.map(PayloadValue.bool)
        parameters[Keys.isReduceTransparencyEnabled] = isReduceTransparencyEnabled.map(PayloadValue.bool)
        parameters[Keys.shouldDifferentiateWithoutColor] = shouldDifferentiateWithoutColor.map(PayloadValue.bool)
        parameters[Keys.orientation] = orientation.map(PayloadValue.string)
        parameters[Keys.screenScaleFactor] = screenScaleFactor.map(PayloadValue.double)
        return parameters
    }

    /// The name of a device orientation; nil when it is unknown or flat (face up or down),
    /// which says nothing about how the app is held.
    public static func orientationName(
        isPortrait: Bool,
        isUpsideDown: Bool,
        isLandscapeLeft: Bool,
        isLandscapeRight: Bool
    ) -> String? {
        if isUpsideDown { return "portraitUpsideDown" }
        if isPortrait { return "portrait" }
        if isLandscapeLeft { return "landscapeLeft" }
        if isLandscapeRight { return "landscapeRight" }
        return nil
    }

    /// The short name of a UIKit content size category from its raw value:
    /// `UICTContentSizeCategoryL` → `L`, `UICTContentSizeCategoryAccessibilityXXXL` →
    /// `AccessibilityXXXL`; nil for the unspecified category and unknown values.
    public static func contentSizeCategoryName(rawValue: String) -> String? {
        let prefix = "UICTContentSizeCategory"
        guard rawValue.hasPrefix(prefix) else { return nil }
        let name = String(rawValue.dropFirst(prefix.count))
        return knownContentSizeCategories.contains(name) ? name : nil
    }

    private static let knownContentSizeCategories: Set<String> = [
        "XS", "S", "M", "L", "XL", "XXL", "XXXL",
        "AccessibilityM", "AccessibilityL", "AccessibilityXL", "AccessibilityXXL", "AccessibilityXXXL",
    ]

    /// Reads the running system's settings, or nil where there is nothing to read.
    ///
    /// nil on every platform without UIKit or AppKit (Linux, Windows, Android) and on
    /// watchOS. The processor does not call this at all on those platforms.
    @MainActor
    public static func system() -> AccessibilitySnapshot? {
        #if canImport(UIKit) && (os(iOS) || os(tvOS) || os(visionOS))
        return uiKit()
        #elseif canImport(AppKit) && os(macOS)
        return appKit()
        #else
        return nil
        #endif
    }

    /// Whether ``system()`` can report anything on this platform.
    public static var isSystemSupported: Bool {
        #if canImport(UIKit) && (os(iOS) || os(tvOS) || os(visionOS))
        return true
        #elseif canImport(AppKit) && os(macOS)
        return true
        #else
        return false
        #endif
    }
}
