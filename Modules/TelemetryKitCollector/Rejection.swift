#if Tools
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
import TelemetryKit

/// An ingest request the collector refused because of what it sent: a body that is not
/// TelemetryDeck's event form, not JSON, not valid gzip, or too large.
///
/// The collector keeps the latest ones and shows them on its page and in `telemetrykit
/// collect`, so a wire regression is seen where the developer is looking, not only in the
/// client's log. Statuses a test scripts on purpose (``Fault``) are not rejections.
public struct Rejection: Sendable, Hashable {
    /// When the collector answered.
    public var time: Date
    /// The status sent: 400, 413 or 415.
    public var status: Int
    /// The request path, e.g. `/v2/namespace/ns/`.
    public var path: String
    /// What the collector answered, e.g. `Malformed body: at byte 224: event 1: member
    /// 'isTestMode' must be the string "true" or "false", not a JSON boolean`.
    public var reason: String
    /// The position of the offending event in the body's array, when one event is at fault.
    public var eventIndex: Int?
    /// The member of that event at fault, e.g. `isTestMode`, when the reason names one.
    public var member: String?
    /// The offending event as sent (the JSON text of that array element, cut after
    /// ``excerptLimit`` bytes), so the page can show what the client wrote.
    public var event: String?

    /// How many bytes of the offending event are kept: enough to show its members, while a
    /// megabyte-long event cannot make the kept rejections large.
    public static let excerptLimit = 2_048

    public init(
        time: Date,
        status: Int,
        path: String,
        reason: String,
        eventIndex: Int? = nil,
        member: String? = nil,
        event: String? = nil
    ) {
        self.time = time
        self.status = status
        self.path = path
        self.reason = reason
        self.eventIndex = eventIndex
        self.member = member
        self.event = event
    }
}

extension Rejection: Encodable {
    enum CodingKeys: String, CodingKey {
        case time, status, path, reason, eventIndex, member, event
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(ISO8601.string(from: time), forKey: .time)
        try container.encode(status, forKey: .status)
        try container.encode(path, forKey: .path)
        try container.encode(reason, forKey: .reason)
        try container.encodeIfPresent(eventIndex, forKey: .eventIndex)
        try container.encodeIfPresent(member, forKey: .member)
        try container.encodeIfPresent(event, forKey: .event)
    }
}
#endif
