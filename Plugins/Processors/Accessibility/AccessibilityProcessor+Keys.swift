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

        /// Every key, in the order of the spec's table.
        public static let all: [String] = [
            isBoldTextEnabled, isReduceMotionEnabled, preferredContentSizeCategory, colorScheme, layoutDirection,
            screenResolutionWidth, screenResolutionHeight,
        ]
    }
}
