#if Tools
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TelemetryKit

/// Parses and validates an ingest body: a JSON array of events.
///
/// A strict JSON parser (RFC 8259: escapes, surrogate pairs, no raw control characters,
/// valid UTF-8, nothing after the array) that builds `Event` values directly. It accepts
/// what `Event`'s `Decodable` conformance accepts and reports the first problem with its
/// byte offset, e.g. `at byte 112: expected ',' or '}' in an object`. Much faster than
/// `JSONDecoder`, so the collector keeps up with the SDK in throughput tests.
struct IngestParser {
    struct Failure: Error, CustomStringConvertible {
        var offset: Int
        var message: String

        var description: String { "at byte \(offset): \(message)" }
    }

    private let bytes: [UInt8]
    private var index = 0

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The events of `body`, in order.
    static func events(in body: [UInt8]) throws(Failure) -> [Event] {
        var parser = IngestParser(body)
        return try parser.parseBody()
    }

    // MARK: Structure

    private mutating func parseBody() throws(Failure) -> [Event] {
        skipWhitespace()
        try expect(UInt8(ascii: "["), "the body must be a JSON array of events")
        var events: [Event] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            index += 1
        } else {
            while true {
                skipWhitespace()
                events.append(try parseEvent(number: events.count))
                skipWhitespace()
                if peek() == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                try expect(UInt8(ascii: "]"), "expected ',' or ']' in the array")
                break
            }
        }
        skipWhitespace()
        guard index == bytes.count else { throw fail("unexpected data after the array") }
        return events
    }

    private mutating func parseEvent(number: Int) throws(Failure) -> Event {
        let start = index
        guard peek() == UInt8(ascii: "{") else { throw fail("event \(number) is not an object") }
        var id: UUID?
        var appID: String?
        var type: String?
        var clientUser: String?
        var sessionID: String?
        var receivedAt: Date?
        var payload: [String: PayloadValue] = [:]
        var floatValue: Double?
        var isTestMode = false

        try parseMembers { parser, key throws(Failure) in
            let valueStart = parser.index
            switch key {
            case "id":
                let text = try parser.parseString()
                guard let value = UUID(uuidString: text) else {
                    throw Failure(offset: valueStart, message: "event \(number): id is not a UUID")
                }
                id = value
            case "appID": appID = try parser.parseString()
            case "type": type = try parser.parseString()
            case "clientUser": clientUser = try parser.parseString()
            case "sessionID":
                sessionID = try parser.parseNullable { parser throws(Failure) in try parser.parseString() }
            case "receivedAt":
                if parser.peek() == UInt8(ascii: "\"") {
                    let text = try parser.parseString()
                    guard let date = ISO8601.date(from: text) else {
                        throw Failure(
                            offset: valueStart,
                            message: "event \(number): receivedAt '\(text)' is not an ISO 8601 UTC timestamp"
                        )
                    }
                    receivedAt = date
                } else {
                    guard case .double(let seconds) = try parser.parseNumber(asDouble: true) else {
                        throw Failure(offset: valueStart, message: "event \(number): receivedAt is not a timestamp")
                    }
                    receivedAt = Date(timeIntervalSince1970: seconds)
                }
            case "payload":
                payload =
                    try parser.parseNullable { parser throws(Failure) in try parser.parsePayload(number: number) }
                    ?? [:]
            case "floatValue":
                floatValue = try parser.parseNullable { parser throws(Failure) -> Double in
                    switch try parser.parseNumber(asDouble: true) {
                    case .double(let value): return value
                    case .int(let value): return Double(value)
                    default:
                        throw Failure(offset: valueStart, message: "event \(number): floatValue is not a number")
                    }
                }
            case "isTestMode":
                isTestMode = try parser.parseNullable { parser throws(Failure) in try parser.parseBool() } ?? false
            default:
                try parser.skipValue()
            }
        }

        func missing(_ field: String) -> Failure {
            Failure(offset: start, message: "event \(number) has no \(field)")
        }
        guard let id else { throw missing("id") }
        guard let appID else { throw missing("appID") }
        guard let type else { throw missing("type") }
        guard let clientUser else { throw missing("clientUser") }
        guard let receivedAt else { throw missing("receivedAt") }
        return Event(
            id: id,
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

    private mutating func parsePayload(number: Int) throws(Failure) -> [String: PayloadValue] {
        var payload = [String: PayloadValue]()
        guard peek() == UInt8(ascii: "{") else { throw fail("event \(number): payload is not an object") }
        try parseMembers { parser, key throws(Failure) in
            switch parser.peek() {
            case UInt8(ascii: "\""): payload[key] = .string(try parser.parseString())
            case UInt8(ascii: "t"), UInt8(ascii: "f"): payload[key] = .bool(try parser.parseBool())
            default:
                guard let value = try parser.parseNumber(asDouble: false) else {
                    throw parser.fail("event \(number): payload value '\(key)' is not a string, number or boolean")
                }
                payload[key] = value
            }
        }
        return payload
    }

    /// Parses `{ "key": value, … }`, handing each value to `member` positioned at its start.
    private mutating func parseMembers(
        _ member: (inout IngestParser, String) throws(Failure) -> Void
    ) throws(Failure) {
        try expect(UInt8(ascii: "{"), "expected an object")
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            index += 1
            return
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else { throw fail("expected a key string") }
            let key = try parseString()
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "expected ':' after a key")
            skipWhitespace()
            try member(&self, key)
            skipWhitespace()
            if peek() == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect(UInt8(ascii: "}"), "expected ',' or '}' in an object")
            return
        }
    }

    private mutating func parseNullable<Value>(
        _ value: (inout IngestParser) throws(Failure) -> Value
    ) throws(Failure) -> Value? {
        if peek() == UInt8(ascii: "n") {
            try literal("null")
            return nil
        }
        return try value(&self)
    }

    /// Skips any JSON value (for unknown keys), checking its syntax.
    private mutating func skipValue(depth: Int = 0) throws(Failure) {
        guard depth < 64 else { throw fail("nesting too deep") }
        switch peek() {
        case UInt8(ascii: "\""): _ = try parseString()
        case UInt8(ascii: "t"), UInt8(ascii: "f"): _ = try parseBool()
        case UInt8(ascii: "n"): try literal("null")
        case UInt8(ascii: "["):
            index += 1
            skipWhitespace()
            if peek() == UInt8(ascii: "]") {
                index += 1
                return
            }
            while true {
                skipWhitespace()
                try skipValue(depth: depth + 1)
                skipWhitespace()
                if peek() == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                try expect(UInt8(ascii: "]"), "expected ',' or ']' in an array")
                return
            }
        case UInt8(ascii: "{"):
            try parseMembers { parser, _ throws(Failure) in try parser.skipValue(depth: depth + 1) }
        default:
            guard try parseNumber(asDouble: true) != nil else { throw fail("expected a value") }
        }
    }

    // MARK: Scalars

    private mutating func parseBool() throws(Failure) -> Bool {
        if peek() == UInt8(ascii: "t") {
            try literal("true")
            return true
        }
        try literal("false")
        return false
    }

    private mutating func literal(_ word: StaticString) throws(Failure) {
        let count = word.utf8CodeUnitCount
        guard index + count <= bytes.count else { throw fail("expected \(word)") }
        for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] {
            throw fail("expected \(word)")
        }
        index += count
    }

    /// A JSON number: `.int` when it has no fraction or exponent and fits (unless
    /// `asDouble`), `.double` otherwise; nil when no number starts here.
    private mutating func parseNumber(asDouble: Bool) throws(Failure) -> PayloadValue? {
        let start = index
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), isDigit(first) else {
            index = start
            return nil
        }
        if first == UInt8(ascii: "0") {
            index += 1
            if let next = peek(), isDigit(next) { throw fail("numbers must not have leading zeros") }
        } else {
            while let byte = peek(), isDigit(byte) { index += 1 }
        }
        var isInteger = true
        if peek() == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            guard let byte = peek(), isDigit(byte) else { throw fail("expected a digit after '.'") }
            while let byte = peek(), isDigit(byte) { index += 1 }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard let byte = peek(), isDigit(byte) else { throw fail("expected a digit in the exponent") }
            while let byte = peek(), isDigit(byte) { index += 1 }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        if isInteger && !asDouble, let value = Int64(text) {
            return .int(value)
        }
        guard let value = Double(text), value.isFinite else {
            throw Failure(offset: start, message: "the number \(text) is out of range")
        }
        return .double(value)
    }

    private mutating func parseString() throws(Failure) -> String {
        let quote = index
        try expect(UInt8(ascii: "\""), "expected a string")
        let start = index
        // Fast path: no escapes.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let string = try validated(bytes[start..<index], at: start)
                index += 1
                return string
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw fail("raw control character in a string") }
            index += 1
        }
        var buffer = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                return try validated(buffer[...], at: start)
            case UInt8(ascii: "\\"):
                index += 1
                guard let escape = peek() else { throw fail("unterminated escape") }
                index += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): buffer.append(escape)
                case UInt8(ascii: "b"): buffer.append(0x08)
                case UInt8(ascii: "f"): buffer.append(0x0C)
                case UInt8(ascii: "n"): buffer.append(0x0A)
                case UInt8(ascii: "r"): buffer.append(0x0D)
                case UInt8(ascii: "t"): buffer.append(0x09)
                case UInt8(ascii: "u"):
                    let escapeStart = index - 2
                    var scalar = try parseHex4()
                    if (0xD800..<0xDC00).contains(scalar) {
                        guard peek() == UInt8(ascii: "\\"), index + 1 < bytes.count,
                            bytes[index + 1] == UInt8(ascii: "u")
                        else { throw Failure(offset: escapeStart, message: "unpaired surrogate in \\u escape") }
                        index += 2
                        let low = try parseHex4()
                        guard (0xDC00..<0xE000).contains(low) else {
                            throw Failure(offset: escapeStart, message: "unpaired surrogate in \\u escape")
                        }
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00..<0xE000).contains(scalar) {
                        throw Failure(offset: escapeStart, message: "unpaired surrogate in \\u escape")
                    }
                    guard let unicode = Unicode.Scalar(scalar) else {
                        throw Failure(offset: escapeStart, message: "invalid \\u escape")
                    }
                    buffer.append(contentsOf: String(Character(unicode)).utf8)
                default:
                    throw fail("invalid escape '\\\(Character(Unicode.Scalar(escape)))'")
                }
            default:
                if byte < 0x20 { throw fail("raw control character in a string") }
                buffer.append(byte)
                index += 1
            }
        }
        throw Failure(offset: quote, message: "unterminated string")
    }

    private mutating func parseHex4() throws(Failure) -> UInt32 {
        guard index + 4 <= bytes.count else { throw fail("incomplete \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw fail("invalid hex digit in \\u escape")
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    private func validated(_ slice: ArraySlice<UInt8>, at offset: Int) throws(Failure) -> String {
        guard let string = String(validating: slice, as: UTF8.self) else {
            throw Failure(offset: offset, message: "a string is not valid UTF-8")
        }
        return string
    }

    // MARK: Helpers

    @inline(__always)
    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }

    private mutating func skipWhitespace() {
        while let byte = peek(),
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r")
                || byte == UInt8(ascii: "\t")
        {
            index += 1
        }
    }

    private mutating func expect(_ byte: UInt8, _ message: String) throws(Failure) {
        guard peek() == byte else { throw fail(peek() == nil ? "\(message) (the body ends early)" : message) }
        index += 1
    }

    private func fail(_ message: String) -> Failure {
        Failure(offset: index, message: message)
    }
}
#endif
