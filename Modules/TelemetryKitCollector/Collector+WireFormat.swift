#if Tools
extension Collector {
    /// The event form the collector accepts: the same two forms the HTTP transmitter writes.
    ///
    /// Either way the check is as strict as TelemetryDeck's service (a `Decodable` with
    /// `isTestMode: String` and a `yyyy-MM-dd'T'HH:mm:ssZ` date formatter), or stricter: a
    /// body the collector accepts in ``telemetryDeck`` form is one the service accepts, so a
    /// wire regression fails in tests and the demo instead of as a permanent 400 in production.
    public enum WireFormat: Sendable, Hashable, CaseIterable {
        /// Exactly `appID`, `type`, `clientUser`, `sessionID` (string, optional), `receivedAt`
        /// (`2026-11-23T19:33:43+0000`), `payload` (strings, numbers, booleans), `floatValue`
        /// (number, optional) and `isTestMode` (`"true"` or `"false"`); anything else, an `id`
        /// included, is refused. Events carry no ids, so duplicates cannot be told apart: each
        /// received event gets a fresh id and counts as new.
        case telemetryDeck
        /// ``telemetryDeck`` plus a required `id` member (a UUID string): repeats of a known
        /// id are counted as duplicates and not recorded again.
        case telemetryDeckWithEventIDs
    }
}
#endif
