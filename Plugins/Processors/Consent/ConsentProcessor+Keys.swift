extension ConsentProcessor {
    /// Storage and payload keys of the consent processor, in one place.
    public enum Keys {
        /// `Data` (JSON) in `ProcessorStorage`: decision, granted purposes and waiting events.
        public static let storage = "TelemetryKit.Consent.state"
        /// Payload key (comma-separated, sorted) with the purposes an event needs. Added by
        /// the processor, read and removed by ``ConsentDestinationFilter`` before transmission.
        public static let purposes = "TelemetryKit.Consent.purposes"
        /// Parameter key that marks an event the processor re-emitted (released from the queue
        /// or held back behind released ones); removed before the event moves on.
        public static let releaseSequence = "TelemetryKit.Consent.releaseSequence"
    }
}
