import TelemetryKitConventions

extension AccessibilityProcessor {
    /// The parameter keys this processor adds, as the TelemetryDeck ingest API names them.
    public enum Keys {
        /// Whether Bold Text is on (Bool).
        public static let isBoldTextEnabled = DefaultParams.Accessibility.isBoldTextEnabled.rawValue
        /// Whether Reduce Motion is on (Bool).
        public static let isReduceMotionEnabled = DefaultParams.Accessibility.isReduceMotionEnabled.rawValue
        /// The Dynamic Type size: `XS`, `S`, `M`, `L`, `XL`, `XXL`, `XXXL`, `AccessibilityM` …
        /// `AccessibilityXXXL` (String).
        public static let preferredContentSizeCategory = DefaultParams.Accessibility.preferredContentSizeCategory
            .rawValue
        /// `Dark` or `Light` (String).
        public static let colorScheme = DefaultParams.UserPreference.colorScheme.rawValue
        /// `leftToRight` or `rightToLeft` (String).
        public static let layoutDirection = DefaultParams.UserPreference.layoutDirection.rawValue
        /// The main screen's width in points (Double).
        public static let screenResolutionWidth = DefaultParams.Device.screenResolutionWidth.rawValue
        /// The main screen's height in points (Double).
        public static let screenResolutionHeight = DefaultParams.Device.screenResolutionHeight.rawValue
        /// Whether Smart or Classic Invert is on (Bool; iOS, tvOS).
        public static let isInvertColorsEnabled = DefaultParams.Accessibility.isInvertColorsEnabled.rawValue
        /// Whether Increase Contrast is on (Bool).
        public static let isDarkerSystemColorsEnabled = DefaultParams.Accessibility.isDarkerSystemColorsEnabled.rawValue
        /// Whether Reduce Transparency is on (Bool).
        public static let isReduceTransparencyEnabled = DefaultParams.Accessibility.isReduceTransparencyEnabled.rawValue
        /// Whether Differentiate Without Color is on (Bool).
        public static let shouldDifferentiateWithoutColor =
            DefaultParams.Accessibility.shouldDifferentiateWithoutColor.rawValue
        /// `portrait`, `portraitUpsideDown`, `landscapeLeft` or `landscapeRight` (String; iOS).
        public static let orientation = DefaultParams.Device.orientation.rawValue
        /// Pixels per point of the main screen, e.g. 3.0 (Double).
        public static let screenScaleFactor = DefaultParams.Device.screenScaleFactor.rawValue

        /// Every key: the spec's table, then the four extra accessibility flags and the two
        /// display facts TelemetryDeck v3 adds where the platform has them.
        public static let all: [String] = [
            isBoldTextEnabled, isReduceMotionEnabled, preferredContentSizeCategory, colorScheme, layoutDirection,
            screenResolutionWidth, screenResolutionHeight, isInvertColorsEnabled, isDarkerSystemColorsEnabled,
            isReduceTransparencyEnabled, shouldDifferentiateWithoutColor, orientation, screenScaleFactor,
        ]
    }
}
