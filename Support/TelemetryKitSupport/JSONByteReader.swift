package import TelemetryKit

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// A minimal strict JSON reader over UTF-8 bytes: events (``EventJSONCodec``), cache records,
/// ingest bodies.
///
/// Reads the pieces `EventJSONCodec` and the JSON-lines journal need (objects, strings,
/// numbers, literals, UUIDs) without building an intermediate tree. Use it only while the
/// buffer it reads is alive (inside `withUnsafeBytes`).
package struct JSONByteReader {
    private let bytes: UnsafeRawBufferPointer
    /// The offset of the next byte to read.
    package private(set) var offset: Int

    /// Nesting limit for skipped values, so hostile input cannot exhaust the stack.
    private static let maximumDepth = 64

    /// Creates a reader at the start of `bytes`.
    package init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
        self.offset = 0
    }

    /// `true` once every byte was read.
    package var isAtEnd: Bool { offset >= bytes.count }

    /// An error at the current offset.
    package func error(_ message: String) -> EventJSONCodecError {
        EventJSONCodecError(message, offset: offset)
    }

    /// Skips spaces, tabs, carriage returns and newlines.
    package mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    /// The next non-whitespace byte, without consuming it.
    package mutating func peekByte() -> UInt8? {
        skipWhitespace()
        return offset < bytes.count ? bytes[offset] : nil
    }

    /// Consumes `byte` (after whitespace) or throws.
    package mutating func expect(_ byte: UInt8) throws(EventJSONCodecError) {
        guard peekByte() == byte else {
            throw error("expected '\(Character(Unicode.Scalar(byte)))'")
        }
        offset += 1
    }

    /// Consumes `byte` (after whitespace) if it is next.
    package mutating func consume(_ byte: UInt8) -> Bool {
        guard peekByte() == byte else { return false }
        offset += 1
        return true
    }

    /// After a member or element: `true` if a comma follows, `false` at `closing`.
    package mutating func readSeparator(closing: UInt8) throws(EventJSONCodecError) -> Bool {
        if consume(UInt8(ascii: ",")) { return true }
        try expect(closing)
        return false
    }

    /// Requires nothing but whitespace from here to the end of the bytes; `value` names what
    /// was read, for the error.
    package mutating func expectEnd(after value: String) throws(EventJSONCodecError) {
        skipWhitespace()
        guard isAtEnd else { throw error("unexpected bytes after the \(value)") }
    }

    /// Reads the members of an object whose `{` was consumed, through its `}`, handing each
    /// key to `member` with the reader at the member's value, which `member` must read or skip.
    package mutating func readMembers(
        _ member: (String, inout JSONByteReader) throws(EventJSONCodecError) -> Void
    ) throws(EventJSONCodecError) {
        if consume(UInt8(ascii: "}")) { return }
        repeat {
            let key = try readString()
            try expect(UInt8(ascii: ":"))
            try member(key, &self)
        } while try readSeparator(closing: UInt8(ascii: "}"))
    }

    /// Reads an array, each element with `element`.
    package mutating func readArray<Element>(
        _ element: (inout JSONByteReader) throws(EventJSONCodecError) -> Element
    ) throws(EventJSONCodecError) -> [Element] {
        try expect(UInt8(ascii: "["))
        var elements: [Element] = []
        if consume(UInt8(ascii: "]")) { return elements }
        repeat {
            elements.append(try element(&self))
        } while try readSeparator(closing: UInt8(ascii: "]"))
        return elements
    }

    /// Runs `read` on a reader over `bytes` (an array, an array slice or `Data`).
    package static func reading<Value>(
        _ bytes: some ContiguousBytes,
        _ read: (inout JSONByteReader) throws(EventJSONCodecError) -> Value
    ) throws(EventJSONCodecError) -> Value {
        let result: Result<Value, EventJSONCodecError> = bytes.withUnsafeBytes { raw in
            var reader = JSONByteReader(raw)
            do throws(EventJSONCodecError) {
                return .success(try read(&reader))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    // MARK: Strings

    /// Reads a string literal; the result must be valid UTF-8.
    package mutating func readString() throws(EventJSONCodecError) -> String {
        try expect(UInt8(ascii: "\""))
        let start = offset
        // Fast path: no escapes.
        var highBits: UInt8 = 0
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == 0x22 {
                let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<offset])
                offset += 1
                // ASCII (the common case) is valid UTF-8 as it is: no validation pass.
                if highBits < 0x80 { return String(decoding: slice, as: UTF8.self) }
                guard let string = String(validating: slice, as: UTF8.self) else {
                    throw error("a string is not valid UTF-8")
                }
                return string
            }
            if byte == 0x5C || byte < 0x20 { break }
            highBits |= byte
            offset += 1
        }
        var buffer = [UInt8](UnsafeRawBufferPointer(rebasing: bytes[start..<offset]))
        while offset < bytes.count {
            let byte = bytes[offset]
            offset += 1
            switch byte {
            case 0x22:
                guard let string = String(validating: buffer, as: UTF8.self) else {
                    throw error("a string is not valid UTF-8")
                }
                return string
            case 0x5C:
                try readEscape(into: &buffer)
            case 0..<0x20:
                offset -= 1
                throw error("a control character inside a string")
            default:
                buffer.append(byte)
            }
        }
        throw error("an unterminated string")
    }

    private mutating func readEscape(into buffer: inout [UInt8]) throws(EventJSONCodecError) {
        guard offset < bytes.count else { throw error("an unterminated escape") }
        let byte = bytes[offset]
        offset += 1
        switch byte {
        case UInt8(ascii: "\""): buffer.append(0x22)
        case UInt8(ascii: "\\"): buffer.append(0x5C)
        case UInt8(ascii: "/"): buffer.append(0x2F)
        case UInt8(ascii: "b"): buffer.append(0x08)
        case UInt8(ascii: "f"): buffer.append(0x0C)
        case UInt8(ascii: "n"): buffer.append(0x0A)
        case UInt8(ascii: "r"): buffer.append(0x0D)
        case UInt8(ascii: "t"): buffer.append(0x09)
        case UInt8(ascii: "u"):
            var scalarValue = try readHex4()
            if (0xD800...0xDBFF).contains(scalarValue) {
                guard offset + 1 < bytes.count, bytes[offset] == 0x5C, bytes[offset + 1] == UInt8(ascii: "u") else {
                    throw error("a lone high surrogate")
                }
                offset += 2
                let low = try readHex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw error("an invalid low surrogate") }
                scalarValue = 0x10000 + ((scalarValue - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(scalarValue) else { throw error("an invalid \\u escape") }
            UTF8.encode(scalar) { buffer.append($0) }
        default:
            throw error("an invalid escape")
        }
    }

    private mutating func readHex4() throws(EventJSONCodecError) -> UInt32 {
        guard offset + 4 <= bytes.count else { throw error("a truncated \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let digit = Self.hexValue(bytes[offset]) else { throw error("a non-hex digit in \\u escape") }
            value = value << 4 | UInt32(digit)
            offset += 1
        }
        return value
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    /// Reads a quoted UUID in the 8-4-4-4-12 hex form (either case).
    package mutating func readUUID() throws(EventJSONCodecError) -> UUID {
        try expect(UInt8(ascii: "\""))
        guard offset + 37 <= bytes.count, bytes[offset + 36] == 0x22 else { throw error("expected a UUID") }
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        let valid = withUnsafeMutableBytes(of: &uuid) { target -> Bool in
            var position = offset
            for index in 0..<16 {
                if index == 4 || index == 6 || index == 8 || index == 10 {
                    guard bytes[position] == UInt8(ascii: "-") else { return false }
                    position += 1
                }
                guard let high = Self.hexValue(bytes[position]), let low = Self.hexValue(bytes[position + 1]) else {
                    return false
                }
                target[index] = high << 4 | low
                position += 2
            }
            return true
        }
        guard valid else { throw error("expected a UUID") }
        offset += 37
        return UUID(uuid: uuid)
    }

    // MARK: Numbers and literals

    /// Reads a number: `.int` when it has neither fraction nor exponent and fits in Int64,
    /// `.double` otherwise.
    package mutating func readNumber() throws(EventJSONCodecError) -> PayloadValue {
        skipWhitespace()
        let start = offset
        var isInteger = true
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        guard try skipDigits() > 0 else { throw error("expected a number") }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            isInteger = false
            offset += 1
            guard try skipDigits() > 0 else { throw error("expected digits after '.'") }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            isInteger = false
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                offset += 1
            }
            guard try skipDigits() > 0 else { throw error("expected digits in the exponent") }
        }
        let text = UnsafeRawBufferPointer(rebasing: bytes[start..<offset])
        if isInteger, let value = Self.parseInt64(text) {
            return .int(value)
        }
        guard let value = Double(String(decoding: text, as: UTF8.self)) else {
            throw error("an unreadable number")
        }
        return .double(value)
    }

    /// Reads an integer; a number with a fraction or an exponent, or out of `Int`'s range, is
    /// an error, as it is for `JSONDecoder`.
    package mutating func readInt() throws(EventJSONCodecError) -> Int {
        let number = try readNumber()
        guard case .int(let value) = number, let int = Int(exactly: value) else {
            throw error("expected an integer")
        }
        return int
    }

    /// Reads a number as a Double.
    package mutating func readDouble() throws(EventJSONCodecError) -> Double {
        switch try readNumber() {
        case .int(let value): return Double(value)
        case .double(let value): return value
        default: throw error("expected a number")
        }
    }

    private mutating func skipDigits() throws(EventJSONCodecError) -> Int {
        let start = offset
        while offset < bytes.count, bytes[offset] >= 0x30, bytes[offset] <= 0x39 { offset += 1 }
        return offset - start
    }

    private static func parseInt64(_ text: UnsafeRawBufferPointer) -> Int64? {
        var index = 0
        let negative = text.first == UInt8(ascii: "-")
        if negative { index = 1 }
        var value: Int64 = 0
        while index < text.count {
            let digit = Int64(text[index] - 0x30)
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) =
                negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            if overflow1 || overflow2 { return nil }
            value = next
            index += 1
        }
        return value
    }

    /// Reads `true` or `false`.
    package mutating func readBool() throws(EventJSONCodecError) -> Bool {
        if consumeLiteral("true") { return true }
        if consumeLiteral("false") { return false }
        throw error("expected true or false")
    }

    /// Consumes `null` if it is next.
    package mutating func consumeNull() -> Bool {
        consumeLiteral("null")
    }

    private mutating func consumeLiteral(_ literal: StaticString) -> Bool {
        skipWhitespace()
        let count = literal.utf8CodeUnitCount
        guard offset + count <= bytes.count else { return false }
        let matches = literal.withUTF8Buffer { expected in
            for index in 0..<count where bytes[offset + index] != expected[index] { return false }
            return true
        }
        if matches { offset += count }
        return matches
    }

    /// Skips any JSON value (for unknown keys written by a newer version).
    package mutating func skipValue() throws(EventJSONCodecError) {
        try skipValue(depth: 0)
    }

    private mutating func skipValue(depth: Int) throws(EventJSONCodecError) {
        guard depth < Self.maximumDepth else { throw error("nesting too deep") }
        switch peekByte() {
        case UInt8(ascii: "\""):
            _ = try readString()
        case UInt8(ascii: "{"):
            offset += 1
            if consume(UInt8(ascii: "}")) { return }
            repeat {
                _ = try readString()
                try expect(UInt8(ascii: ":"))
                try skipValue(depth: depth + 1)
            } while try readSeparator(closing: UInt8(ascii: "}"))
        case UInt8(ascii: "["):
            offset += 1
            if consume(UInt8(ascii: "]")) { return }
            repeat {
                try skipValue(depth: depth + 1)
            } while try readSeparator(closing: UInt8(ascii: "]"))
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            _ = try readBool()
        case UInt8(ascii: "n"):
            guard consumeNull() else { throw error("expected null") }
        default:
            _ = try readNumber()
        }
    }

    // MARK: Events

    /// Reads one event object. `sessionID`, `payload`, `floatValue` and `isTestMode` may be
    /// absent or `null`; unknown keys are skipped.
    package mutating func readEvent() throws(EventJSONCodecError) -> Event {
        var id: UUID?
        var appID: String?
        var type: String?
        var clientUser: String?
        var sessionID: String?
        var receivedAt: Date?
        var payload: [String: PayloadValue] = [:]
        var floatValue: Double?
        var isTestMode = false

        skipWhitespace()
        let start = offset
        try expect(UInt8(ascii: "{"))
        if !consume(UInt8(ascii: "}")) {
            repeat {
                let key = try readString()
                try expect(UInt8(ascii: ":"))
                switch key {
                case "id": id = try readUUID()
                case "appID": appID = try readString()
                case "type": type = try readString()
                case "clientUser": clientUser = try readString()
                case "sessionID": sessionID = consumeNull() ? nil : try readString()
                case "receivedAt": receivedAt = try readDate()
                case "payload": payload = consumeNull() ? [:] : try readPayload()
                case "floatValue": floatValue = consumeNull() ? nil : try readDouble()
                case "isTestMode": isTestMode = consumeNull() ? false : try readBool()
                default: try skipValue()
                }
            } while try readSeparator(closing: UInt8(ascii: "}"))
        }
        func missing(_ field: String) -> EventJSONCodecError {
            EventJSONCodecError("missing \(field)", offset: start)
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

    private mutating func readDate() throws(EventJSONCodecError) -> Date {
        if peekByte() == UInt8(ascii: "\"") {
            let start = offset
            let string = try readString()
            guard let date = ISO8601.date(from: string) else {
                throw EventJSONCodecError("receivedAt '\(string)' is not an ISO 8601 UTC timestamp", offset: start)
            }
            return date
        }
        let start = offset
        let seconds = try readDouble()
        let date = Date(timeIntervalSince1970: seconds)
        guard ISO8601.canWrite(date) else {
            throw EventJSONCodecError("receivedAt \(seconds) is outside the years 0000 to 9999", offset: start)
        }
        return date
    }

    /// Reads a payload object (`package`: the SQLite cache reads its rows' payloads with it).
    package mutating func readPayload() throws(EventJSONCodecError) -> [String: PayloadValue] {
        var payload: [String: PayloadValue] = [:]
        try expect(UInt8(ascii: "{"))
        if consume(UInt8(ascii: "}")) { return payload }
        repeat {
            let key = try readString()
            try expect(UInt8(ascii: ":"))
            switch peekByte() {
            case UInt8(ascii: "\""): payload[key] = .string(try readString())
            case UInt8(ascii: "t"), UInt8(ascii: "f"): payload[key] = .bool(try readBool())
            case let byte? where byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte):
                payload[key] = try readNumber()
            default: throw error("payload value '\(key)' is not a string, number or boolean")
            }
        } while try readSeparator(closing: UInt8(ascii: "}"))
        return payload
    }
}
