extension UserIdentifierProcessor {
    /// The `ProcessorStorage` keys this processor uses.
    public enum Keys {
        /// The persisted random UUID that identifies this install when no other identifier exists.
        public static let installationIdentifier = "TelemetryKit.UserIdentifier.installationIdentifier"
        /// Where TelemetryDeck's SDK (v2, v3) persisted the same identifier; read once, on the
        /// first start with a storage that has no ``installationIdentifier``.
        public static let telemetryDeckUserIdentifier = "defaultUserIdentifier"
        /// The identifier set with ``UserIdentifierProcessor/setUserIdentifier(_:)`` (a string;
        /// absent when none is set), so that the user the app chose is the user of later launches.
        public static let assignedUserIdentifier = "TelemetryKit.UserIdentifier.assignedUserIdentifier"
        /// The identifier that ``UserIdentifierProcessor/resetIdentity()`` gave the install: it
        /// wins over every platform default, since the vendor identifier cannot be rotated.
        public static let resetIdentifier = "TelemetryKit.UserIdentifier.resetIdentifier"
    }
}
