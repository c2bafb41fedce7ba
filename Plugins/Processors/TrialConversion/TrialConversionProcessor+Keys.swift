import TelemetryKitConventions

extension TrialConversionProcessor {
    /// The event, parameter and storage keys of this processor.
    public enum Keys {
        /// The event sent when a free trial turns into a paid subscription.
        public static let convertedFromTrial = DefaultEvents.Purchase.convertedFromTrial.rawValue
        /// The subscription's product identifier, on ``convertedFromTrial`` (String).
        public static let productID = DefaultParams.Purchase.productID.rawValue
        /// Where the original transaction IDs of running free trials are kept
        /// (`ProcessorStorage` data: a JSON array of strings).
        public static let activeTrialsStorage = "TelemetryKit.TrialConversion.activeTrials"
    }
}
