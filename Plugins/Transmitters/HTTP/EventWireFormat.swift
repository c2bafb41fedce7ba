/// The JSON form of the events in a request body.
///
/// TelemetryDeck's ingest service decodes each event into a fixed set of members and answers
/// 400 to anything else — and a 400 is permanent, so one wrong member would drop the whole
/// queue. ``telemetryDeck`` is therefore the default; ``telemetryDeckWithEventIDs`` exists for
/// receivers of your own (TelemetryKit's collector, a proxy) that drop re-sent duplicates.
///
/// ```swift
/// var configuration = HTTPEventTransmitter.Configuration(apiBaseURL: collector.baseURL, namespace: "dev")
/// configuration.wireFormat = .telemetryDeckWithEventIDs   // the collector de-duplicates by id
/// ```
public enum EventWireFormat: Sendable, Hashable, CaseIterable {
    /// Exactly the members TelemetryDeck's service reads, in its formats:
    ///
    /// | member | JSON |
    /// |---|---|
    /// | `appID`, `type`, `clientUser` | string |
    /// | `sessionID` | string; absent when nil |
    /// | `receivedAt` | string `yyyy-MM-dd'T'HH:mm:ssZ` in UTC: `2026-11-23T19:33:43+0000` |
    /// | `payload` | object of strings, integers, doubles and booleans |
    /// | `floatValue` | number; absent when nil or not finite |
    /// | `isTestMode` | the string `"true"` or `"false"` |
    ///
    /// Event ids stay in the caches: a batch re-sent after a lost answer arrives twice.
    case telemetryDeck
    /// ``telemetryDeck`` with each event's id as a leading `"id"` member (an uppercase UUID
    /// string), so a receiver can drop the copies a re-sent batch brings. TelemetryDeck's
    /// service refuses it (400): use it only towards receivers that expect it.
    case telemetryDeckWithEventIDs
}
