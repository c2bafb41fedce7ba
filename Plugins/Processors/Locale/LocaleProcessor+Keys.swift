import TelemetryKitConventions

extension LocaleProcessor {
    /// The parameter keys this processor adds, as the TelemetryDeck ingest API names them.
    public enum Keys {
        /// The locale the app runs in, e.g. `en_US` (String).
        public static let locale = DefaultParams.RunContext.locale.rawValue
        /// The language the app runs in, e.g. `en` (String).
        public static let language = DefaultParams.RunContext.language.rawValue
        /// The user's first preferred language, e.g. `de` (String).
        public static let preferredLanguage = DefaultParams.UserPreference.language.rawValue
        /// The user's region, e.g. `US` (String).
        public static let region = DefaultParams.UserPreference.region.rawValue

        /// Every key, in the order of the spec's table.
        public static let all: [String] = [locale, language, preferredLanguage, region]
    }
}
