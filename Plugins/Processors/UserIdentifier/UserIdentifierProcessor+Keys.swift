extension UserIdentifierProcessor {
    /// The `ProcessorStorage` keys this processor uses.
    public enum Keys {
        /// The persisted random UUID that identifies this install when no other identifier exists.
        public static let installationIdentifier = "TelemetryKit.UserIdentifier.installationIdentifier"
    }
}
