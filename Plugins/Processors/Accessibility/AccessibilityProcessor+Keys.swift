extension AccessibilityProcessor {
    /// The parameter keys this processor adds, as the TelemetryDeck ingest API names them.
    public enum Keys {
        /// Whether Bold Text is on (Bool).
        public static let isBoldTextEnabled = "TelemetryDeck.Accessibility.isBoldTextEnabled"
        /// Whether Reduce Motion is on (Bool).
        public static let isReduceMotionEnabled = "TelemetryDeck.Accessibility.isReduceMotionEnabled"
        /// The Dynamic Type size: `XS`, `S`, `M`, `L`, `XL`, `XXL`, `XXXL`, `AccessibilityM` …
        /// `AccessibilityXXXL` (String).
        public static let preferredContentSizeCategory = "TelemetryDeck.Accessibility.preferredContentSizeCategory"
        /// `Dark` or `Light` (String).
        public static let colorScheme = "TelemetryDeck.UserPreference.colorScheme"
        /// `leftToRight` or `rightToLeft` (String).
        public static let layoutDirection = "TelemetryDeck.UserPreference.layoutDirection"
        /// The main screen's width in points (Double).
        public static let screenResolutionWidth = "TelemetryDeck.Device.screenResolutionWidth"
        /// The main screen's height in points (Double).
        public static let screenResolutionHeight = "TelemetryDeck.Device.screenResolutionHeight"
        /// Whether Smart or Classic Invert is on (Bool; iOS, tvOS).
        public static let isInvertColorsEnabled = "TelemetryDeck.Accessibility.isInvertColorsEnabled"
        /// Whether Increase Contrast is on (Bool).
        public static let isDarkerSystemColorsEnabled = "TelemetryDeck.Accessibility.isDarkerSystemColorsEnabled"
        /// Whether Reduce Transparency is on (Bool).
        public static let isReduceTransparencyEnabled = "TelemetryDeck.Accessibility.isReduceTransparencyEnabled"
        /// Whether Differentiate Without Color is on (Bool).
        public static let shouldDifferentiateWithoutColor =
            "TelemetryDeck.Accessibility.shouldDifferentiateWithoutColor"
        /// `portrait`, `portraitUpsideDown`, `landscapeLeft` or `landscapeRight` (String; iOS).
        public static let orientation = "TelemetryDeck.Device.orientation"
        /// Pixels per point of the main screen, e.g. 3.0 (Double).
        public static let screenScaleFactor = "TelemetryDeck.Device.screenScaleFactor"

        /// Every key: the spec's table, then the four extra accessibility flags and the two
        /// display facts TelemetryDeck v3 adds where the platform has them.
        public static let all: [String] = [
            isBoldTextEnabled, isReduceMotionEnabled, preferredContentSizeCategory, colorScheme, layoutDirection,
            screenResolutionWidth, screenResolutionHeight, isInvertColorsEnabled, isDarkerSystemColorsEnabled,
            isReduceTransparencyEnabled, shouldDifferentiateWithoutColor, orientation, screenScaleFactor,
        ]
    }
}
