public import TelemetryKit
import TelemetryKitSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes request bodies: a JSON array of events in an ``EventWireFormat``, byte by byte,
/// several times faster than `JSONEncoder`.
///
/// Members come in a fixed order (`id` when the format has it, then `appID`, `type`,
/// `clientUser`, `sessionID`, `receivedAt`, `payload`, `floatValue`, `isTestMode`), so the same
/// batch always gives the same bytes but for the payload's key order. Nothing it writes is
/// invalid JSON: strings are escaped (quotes, backslashes, every control character),
/// non-finite payload numbers become the strings `"NaN"`, `"Infinity"`, `"-Infinity"`, and a
/// non-finite `floatValue` is left out. The payload writer is ``EventJSONCodec``'s (the cache
/// form), which encodes the processors' shared metadata once for a run of events.
///
/// ```swift
/// let body: [UInt8] = EventWireEncoder.encode(batch)   // TelemetryDeck's form
/// ```
public enum EventWireEncoder {
    /// The JSON array of `events` in `format`.
    public static func encode(_ events: [Event], format: EventWireFormat = .telemetryDeck) -> [UInt8] {
        var buffer = [UInt8]()
        var estimate = 2
        for event in events { estimate += event.estimatedEncodedSize + 1 }
        buffer.reserveCapacity(estimate)
        encode(events, format: format, into: &buffer)
        return buffer
    }

    /// Appends the JSON array of `events` in `format` to `buffer`.
    public static func encode(
        _ events: [Event],
        format: EventWireFormat = .telemetryDeck,
        into buffer: inout [UInt8]
    ) {
        buffer.append(UInt8(ascii: "["))
        var first = true
        for event in events {
            if !first { buffer.append(UInt8(ascii: ",")) }
            first = false
            encode(event, format: format, into: &buffer)
        }
        buffer.append(UInt8(ascii: "]"))
    }

    /// Appends the JSON object of one event in `format` to `buffer`.
    public static func encode(_ event: Event, format: EventWireFormat = .telemetryDeck, into buffer: inout [UInt8]) {
        if format == .telemetryDeckWithEventIDs {
            buffer.append(contentsOf: #"{"id":"#.utf8)
            EventJSONCodec.appendUUID(event.id, to: &buffer)
            buffer.append(contentsOf: #","appID":"#.utf8)
        } else {
            buffer.append(contentsOf: #"{"appID":"#.utf8)
        }
        EventJSONCodec.appendString(event.appID, to: &buffer)
        buffer.append(contentsOf: #","type":"#.utf8)
        EventJSONCodec.appendString(event.type, to: &buffer)
        buffer.append(contentsOf: #","clientUser":"#.utf8)
        EventJSONCodec.appendString(event.clientUser, to: &buffer)
        if let sessionID = event.sessionID {
            buffer.append(contentsOf: #","sessionID":"#.utf8)
            EventJSONCodec.appendString(sessionID, to: &buffer)
        }
        buffer.append(contentsOf: #","receivedAt":""#.utf8)
        ISO8601.appendSecondsTimestamp(event.receivedAt, to: &buffer)
        buffer.append(contentsOf: #"","payload":"#.utf8)
        EventJSONCodec.appendPayload(of: event, to: &buffer)
        if let floatValue = event.floatValue, floatValue.isFinite {
            buffer.append(contentsOf: #","floatValue":"#.utf8)
            EventJSONCodec.appendDouble(floatValue, to: &buffer)
        }
        buffer.append(
            contentsOf: (event.isTestMode == "true" ? #","isTestMode":"true"}"# : #","isTestMode":"false"}"#).utf8
        )
    }
}
