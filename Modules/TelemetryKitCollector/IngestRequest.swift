#if Tools
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// One ingest request as the collector saw and answered it.
public struct IngestRequest: Sendable {
    /// 0 for the first ingest request, then 1, 2, …
    public var index: Int
    /// The connection it came on: 0 for the first connection the collector accepted, then
    /// 1, 2, … (requests on one kept-alive connection share the number).
    public var connection: Int
    public var method: String
    /// The request path as sent (without the query).
    public var path: String
    /// The namespace segment of the path.
    public var namespace: String
    /// Header fields keyed by lowercased name (repeated fields joined with ", ").
    public var headers: [String: String]
    /// The body as received (possibly gzip-compressed).
    public var rawBodyByteCount: Int
    /// The body after inflating, when it was gzip-compressed; otherwise as received.
    public var body: Data
    /// Whether the body came with `Content-Encoding: gzip`.
    public var wasGzipped: Bool
    /// The ids of the events in the body, in body order (empty when the body was invalid):
    /// their `id` members in the ``Collector/WireFormat/telemetryDeckWithEventIDs`` form; in
    /// the ``Collector/WireFormat/telemetryDeck`` form, which has none, the fresh ids the
    /// collector gave them.
    public var eventIDs: [UUID]
    /// The fault that answered the request (nil: handled normally).
    public var fault: Fault?
    /// The status sent; nil when the answer was cut off on purpose.
    public var status: Int?
    /// Whether the events were stored.
    public var recorded: Bool

    /// Whether the client cannot know the outcome: the events were stored but the answer
    /// never arrived complete.
    public var answerLost: Bool { recorded && status == nil }
}
#endif
