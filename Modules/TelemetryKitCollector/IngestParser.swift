#if Tools
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TelemetryKit
import TelemetryKitSupport

/// Parses an ingest body: a JSON array of events in a ``Collector/WireFormat``, checked the
/// way TelemetryDeck's service checks it.
///
/// Strict JSON (RFC 8259: escapes, surrogate pairs, no raw control characters, valid UTF-8,
/// nothing after the array), read with the core's `JSONByteReader` straight into `Event`
/// values, and strict members: each must be known, present once, of its JSON type and format.
/// The first problem is reported with its byte offset, the event's index and the member, e.g.
/// `at byte 212: event 3: member 'isTestMode' must be the string "true" or "false", not a JSON boolean`.
enum IngestParser {
    struct Failure: Error, CustomStringConvertible {
        var offset: Int
        var message: String
        /// The offending event's position in the array and the offset of its first byte,
        /// when one event is at fault (not when the body is no array at all).
        var event: (index: Int, start: Int)?

        var description: String { "at byte \(offset): \(message)" }

        /// The member the message names (`member 'isTestMode' must be…`, `unknown member
        /// 'extra'…`): every event-level message of this parser names its member that way.
        var member: String? {
            guard event != nil, let named = message.firstRange(of: "member '") else { return nil }
            let rest = message[named.upperBound...]
            return rest.firstIndex(of: "'").map { String(rest[..<$0]) }
        }
    }

    /// The members of TelemetryDeck's event, in the order the transmitter writes them.
    static let telemetryDeckMembers = [
        "appID", "type", "clientUser", "sessionID", "receivedAt", "payload", "floatValue", "isTestMode",
    ]

    /// The events of `body`, in order. Events without an `id` member get a fresh id.
    static func events(in body: [UInt8], format: Collector.WireFormat) throws(Failure) -> [Event] {
        let result: Result<[Event], Failure> = body.withUnsafeBytes { raw in
            do throws(Failure) {
                return .success(try parse(raw, format: format))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private static func parse(_ raw: UnsafeRawBufferPointer, format: Collector.WireFormat) throws(Failure) -> [Event] {
        var reader = JSONByteReader(raw)
        guard reader.consume(UInt8(ascii: "[")) else {
            let early = reader.isAtEnd ? " (the body ends early)" : ""
            throw Failure(offset: reader.offset, message: "the body must be a JSON array of events" + early)
        }
        var events: [Event] = []
        var pool = StringPool()
        if !reader.consume(UInt8(ascii: "]")) {
            var more = true
            while more {
                reader.skipWhitespace()
                let start = reader.offset
                guard reader.peekByte() == UInt8(ascii: "{") else {
                    throw Failure(
                        offset: reader.offset,
                        message: "event \(events.count) is not an object",
                        event: (events.count, start)
                    )
                }
                do {
                    events.append(try readEvent(&reader, format: format, pool: &pool))
                    more = try reader.readSeparator(closing: UInt8(ascii: "]"))
                } catch {
                    throw Failure(
                        offset: error.offset,
                        message: "event \(events.count): \(error.message)",
                        event: (events.count, start)
                    )
                }
            }
        }
        reader.skipWhitespace()
        guard reader.isAtEnd else { throw Failure(offset: reader.offset, message: "unexpected data after the array") }
        return events
    }

    /// Reads one event object, member by member.
    private static func readEvent(
        _ reader: inout JSONByteReader,
        format: Collector.WireFormat,
        pool: inout StringPool
    ) throws(EventJSONCodecError) -> Event {
        var id: UUID?
        var appID: String?
        var type: String?
        var clientUser: String?
        var sessionID: String?
        var receivedAt: Date?
        var payload: [String: PayloadValue]?
        var floatValue: Double?
        var isTestMode: Bool?
        var seen: Set<String> = []

        reader.skipWhitespace()
        let start = reader.offset
        try reader.expect(UInt8(ascii: "{"))
        if !reader.consume(UInt8(ascii: "}")) {
            repeat {
                reader.skipWhitespace()
                let keyOffset = reader.offset
                let key = try reader.readString()
                guard seen.insert(key).inserted else {
                    throw EventJSONCodecError("member '\(key)' appears twice", offset: keyOffset)
                }
                try reader.expect(UInt8(ascii: ":"))
                switch key {
                case "appID": appID = pool.shared(try readString(&reader, member: key))
                case "type": type = pool.shared(try readString(&reader, member: key))
                case "clientUser": clientUser = pool.shared(try readString(&reader, member: key))
                case "sessionID": sessionID = reader.consumeNull() ? nil : try readString(&reader, member: key)
                case "receivedAt": receivedAt = try readTimestamp(&reader)
                case "payload": payload = try readPayload(&reader, pool: &pool)
                case "floatValue": floatValue = reader.consumeNull() ? nil : try readNumber(&reader, member: key)
                case "isTestMode": isTestMode = try readTestMode(&reader)
                case "id" where format == .telemetryDeckWithEventIDs:
                    guard reader.peekByte() == UInt8(ascii: "\"") else {
                        throw typeError(reader, "id", "a UUID string")
                    }
                    do {
                        id = try reader.readUUID()
                    } catch {
                        throw EventJSONCodecError("member 'id' must be a UUID string", offset: error.offset)
                    }
                case "id":
                    throw EventJSONCodecError(
                        "unknown member 'id': the TelemetryDeck form has no event ids "
                            + "(the collector takes them when configured with .telemetryDeckWithEventIDs)",
                        offset: keyOffset
                    )
                default:
                    throw EventJSONCodecError(
                        "unknown member '\(key)': the TelemetryDeck form has exactly "
                            + telemetryDeckMembers.joined(separator: ", "),
                        offset: keyOffset
                    )
                }
            } while try reader.readSeparator(closing: UInt8(ascii: "}"))
        }
        func missing(_ member: String) -> EventJSONCodecError {
            EventJSONCodecError("member '\(member)' is missing", offset: start)
        }
        if format == .telemetryDeckWithEventIDs && id == nil { throw missing("id") }
        guard let appID else { throw missing("appID") }
        guard let type else { throw missing("type") }
        guard let clientUser else { throw missing("clientUser") }
        guard let receivedAt else { throw missing("receivedAt") }
        guard let payload else { throw missing("payload") }
        guard let isTestMode else { throw missing("isTestMode") }
        for (member, value) in [("appID", appID), ("type", type), ("clientUser", clientUser)] where value.isEmpty {
            throw EventJSONCodecError("member '\(member)' is empty", offset: start)
        }
        return Event(
            id: id ?? UUID(),
            appID: appID,
            type: type,
            clientUser: clientUser,
            sessionID: sessionID,
            receivedAt: receivedAt,
            payload: payload,
            floatValue: floatValue,
            isTestMode: isTestMode
        )
    }

    /// An error naming what `member` must be and what the next value is instead.
    private static func typeError(
        _ reader: JSONByteReader,
        _ member: String,
        _ expected: String
    ) -> EventJSONCodecError {
        reader.error("member '\(member)' must be \(expected), not \(kindOfNextValue(reader))")
    }

    /// What the next value is, for messages: "a JSON boolean", "null", …
    private static func kindOfNextValue(_ reader: JSONByteReader) -> String {
        var reader = reader
        switch reader.peekByte() {
        case UInt8(ascii: "\"")?: return "a string"
        case UInt8(ascii: "t")?, UInt8(ascii: "f")?: return "a JSON boolean"
        case UInt8(ascii: "n")?: return "null"
        case UInt8(ascii: "{")?: return "an object"
        case UInt8(ascii: "[")?: return "an array"
        case nil: return "the end of the body"
        default: return "a number"
        }
    }

    private static func readString(_ reader: inout JSONByteReader, member: String) throws(EventJSONCodecError) -> String
    {
        guard reader.peekByte() == UInt8(ascii: "\"") else { throw typeError(reader, member, "a string") }
        return try reader.readString()
    }

    private static func readNumber(_ reader: inout JSONByteReader, member: String) throws(EventJSONCodecError) -> Double
    {
        switch reader.peekByte() {
        case let byte? where byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte):
            return try reader.readDouble()
        default:
            throw typeError(reader, member, "a number")
        }
    }

    /// `"true"` or `"false"`: the service declares `isTestMode: String`, so a JSON boolean
    /// fails its decoding.
    private static func readTestMode(_ reader: inout JSONByteReader) throws(EventJSONCodecError) -> Bool {
        let expected = #"the string "true" or "false""#
        guard reader.peekByte() == UInt8(ascii: "\"") else { throw typeError(reader, "isTestMode", expected) }
        let offset = reader.offset
        switch try reader.readString() {
        case "true": return true
        case "false": return false
        case let other:
            throw EventJSONCodecError("member 'isTestMode' must be \(expected), not \"\(other)\"", offset: offset)
        }
    }

    /// `yyyy-MM-dd'T'HH:mm:ssZ`: what the service's `DateFormatter` reads.
    private static func readTimestamp(_ reader: inout JSONByteReader) throws(EventJSONCodecError) -> Date {
        let expected = "a string like 2026-11-23T19:33:43+0000 (yyyy-MM-dd'T'HH:mm:ssZ, no fraction)"
        guard reader.peekByte() == UInt8(ascii: "\"") else { throw typeError(reader, "receivedAt", expected) }
        let offset = reader.offset
        let string = try reader.readString()
        guard let date = ISO8601.date(fromSecondsTimestamp: string) else {
            throw EventJSONCodecError("member 'receivedAt' must be \(expected), not \"\(string)\"", offset: offset)
        }
        return date
    }

    /// An object of strings, numbers and booleans (the service's payload values).
    private static func readPayload(
        _ reader: inout JSONByteReader,
        pool: inout StringPool
    ) throws(EventJSONCodecError) -> [String: PayloadValue] {
        guard reader.peekByte() == UInt8(ascii: "{") else { throw typeError(reader, "payload", "an object") }
        try reader.expect(UInt8(ascii: "{"))
        var payload: [String: PayloadValue] = [:]
        if reader.consume(UInt8(ascii: "}")) { return payload }
        repeat {
            reader.skipWhitespace()
            let keyOffset = reader.offset
            let key = pool.shared(try reader.readString())
            guard payload[key] == nil else {
                throw EventJSONCodecError("member 'payload': key '\(key)' appears twice", offset: keyOffset)
            }
            try reader.expect(UInt8(ascii: ":"))
            switch reader.peekByte() {
            case UInt8(ascii: "\"")?: payload[key] = .string(pool.shared(try reader.readString()))
            case UInt8(ascii: "t")?, UInt8(ascii: "f")?: payload[key] = .bool(try reader.readBool())
            case let byte? where byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte):
                payload[key] = try reader.readNumber()
            default:
                throw reader.error(
                    "member 'payload': the value of '\(key)' must be a string, number or boolean, "
                        + "not \(kindOfNextValue(reader))"
                )
            }
        } while try reader.readSeparator(closing: UInt8(ascii: "}"))
        return payload
    }
}

extension IngestParser {
    /// One copy of each distinct string of a body: the events of a batch repeat the same
    /// parameter names and mostly the same values (the SDK's ~40 `TelemetryDeck.*`
    /// parameters), so the events a collector keeps share their strings' storage instead of
    /// holding a copy each, which is most of an event's memory.
    struct StringPool {
        private var strings: Set<String> = []

        /// The pool's copy of `string`, added if it is new.
        mutating func shared(_ string: String) -> String {
            strings.insert(string).memberAfterInsert
        }
    }
}

extension IngestParser {
    /// The JSON value starting at `start` in `body` (an object or array up to its matching
    /// close, strings and their escapes skipped), cut after `limit` bytes: the offending event
    /// as the client wrote it.
    static func excerpt(of body: [UInt8], from start: Int, limit: Int) -> String {
        guard start < body.count else { return "" }
        var depth = 0
        var inString = false
        var escaped = false
        var end = start
        scan: while end < body.count, end - start < limit {
            let byte = body[end]
            end += 1
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                if depth <= 0 { break scan }
            default:
                if depth == 0 { break scan }
            }
        }
        return String(decoding: body[start..<end], as: UTF8.self)
    }
}
#endif
