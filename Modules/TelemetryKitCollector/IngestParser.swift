#if Tools
import TelemetryKit

/// Parses an ingest body: a JSON array of events, each in ``EventJSONCodec``'s form.
///
/// Strict JSON (RFC 8259: escapes, surrogate pairs, no raw control characters, valid UTF-8,
/// nothing after the array), read by the core's `JSONByteReader` straight into `Event`
/// values — the same reader the durable caches use, so what the SDK writes the collector
/// reads. The first problem is reported with its byte offset and the event's index, e.g.
/// `at byte 112: event 3: expected ','`.
enum IngestParser {
    struct Failure: Error, CustomStringConvertible {
        var offset: Int
        var message: String

        var description: String { "at byte \(offset): \(message)" }
    }

    /// The events of `body`, in order.
    static func events(in body: [UInt8]) throws(Failure) -> [Event] {
        let result: Result<[Event], Failure> = body.withUnsafeBytes { raw in
            do throws(Failure) {
                return .success(try parse(raw))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private static func parse(_ raw: UnsafeRawBufferPointer) throws(Failure) -> [Event] {
        var reader = JSONByteReader(raw)
        guard reader.consume(UInt8(ascii: "[")) else {
            let early = reader.isAtEnd ? " (the body ends early)" : ""
            throw Failure(offset: reader.offset, message: "the body must be a JSON array of events" + early)
        }
        var events: [Event] = []
        if !reader.consume(UInt8(ascii: "]")) {
            var more = true
            while more {
                guard reader.peekByte() == UInt8(ascii: "{") else {
                    throw Failure(offset: reader.offset, message: "event \(events.count) is not an object")
                }
                do {
                    events.append(try reader.readEvent())
                    more = try reader.readSeparator(closing: UInt8(ascii: "]"))
                } catch {
                    throw Failure(offset: error.offset, message: "event \(events.count): \(error.message)")
                }
            }
        }
        reader.skipWhitespace()
        guard reader.isAtEnd else { throw Failure(offset: reader.offset, message: "unexpected data after the array") }
        return events
    }
}
#endif
