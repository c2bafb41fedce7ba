public import TelemetryKit

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Encodes batches as the ingest API's JSON array, several times faster than `JSONEncoder`;
/// each element is ``EventJSONCodec``'s form of the event (the core's one event codec).
///
/// The output is what `Event`'s `Codable` conformance produces, byte for byte up to key
/// order: `id` as an uppercase UUID, `receivedAt` as ISO 8601 UTC with milliseconds,
/// `sessionID` and `floatValue` omitted when absent, payload values as native JSON types.
/// Nothing it writes is invalid JSON: strings are escaped (quotes, backslashes, every
/// control character), non-finite payload numbers become the strings `"NaN"`,
/// `"Infinity"`, `"-Infinity"`, and a non-finite `floatValue` is left out.
///
/// ```swift
/// let body: [UInt8] = EventWireEncoder.encode(batch)   // a JSON array
/// ```
public enum EventWireEncoder {
    /// The JSON array of `events`.
    public static func encode(_ events: [Event]) -> [UInt8] {
        var buffer = [UInt8]()
        var estimate = 2
        for event in events { estimate += event.estimatedEncodedSize + 1 }
        buffer.reserveCapacity(estimate)
        encode(events, into: &buffer)
        return buffer
    }

    /// Appends the JSON array of `events` to `buffer`.
    public static func encode(_ events: [Event], into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "["))
        var first = true
        for event in events {
            if !first { buffer.append(UInt8(ascii: ",")) }
            first = false
            encode(event, into: &buffer)
        }
        buffer.append(UInt8(ascii: "]"))
    }

    /// Appends the JSON object of one event to `buffer` (``EventJSONCodec``'s form).
    @inlinable
    public static func encode(_ event: Event, into buffer: inout [UInt8]) {
        EventJSONCodec.encode(event, into: &buffer)
    }
}
