#if OpenTelemetry
/// Appends protocol-buffers encoding (proto3 wire format) for the few OTLP messages the
/// transmitter writes, straight into a byte array: no generated code, no intermediate
/// message values.
///
/// A nested message's length comes before its bytes but is known only after them. The writer
/// reserves one length byte, writes the message, and fills the byte in — most attributes are
/// shorter than 128 bytes, so only larger messages (a log record, the batch) shift their own
/// bytes once to make room for a longer length.
struct ProtobufWriter {
    /// The encoded bytes so far.
    var bytes: [UInt8]

    init(capacity: Int = 0) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// The wire types used by OTLP's fields.
    enum WireType: UInt8 {
        case varint = 0
        case fixed64 = 1
        case lengthDelimited = 2
        case fixed32 = 5
    }

    mutating func appendVarint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    mutating func appendTag(_ field: UInt32, _ wireType: WireType) {
        appendVarint(UInt64(field) << 3 | UInt64(wireType.rawValue))
    }

    /// A `string` field (UTF-8, as Swift strings are).
    mutating func appendString(_ field: UInt32, _ value: String) {
        appendTag(field, .lengthDelimited)
        var value = value
        value.withUTF8 { utf8 in
            appendVarint(UInt64(utf8.count))
            bytes.append(contentsOf: utf8)
        }
    }

    /// A `bytes` field.
    mutating func appendBytes(_ field: UInt32, _ value: [UInt8]) {
        appendTag(field, .lengthDelimited)
        appendVarint(UInt64(value.count))
        bytes.append(contentsOf: value)
    }

    /// A `fixed64` field, little-endian.
    mutating func appendFixed64(_ field: UInt32, _ value: UInt64) {
        appendTag(field, .fixed64)
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A `fixed32` field, little-endian.
    mutating func appendFixed32(_ field: UInt32, _ value: UInt32) {
        appendTag(field, .fixed32)
        withUnsafeBytes(of: value.littleEndian) { bytes.append(contentsOf: $0) }
    }

    /// A `double` field (IEEE 754, little-endian).
    mutating func appendDouble(_ field: UInt32, _ value: Double) {
        appendFixed64(field, value.bitPattern)
    }

    /// An `int64` field: a negative value takes ten bytes (two's complement, as proto3 says).
    mutating func appendInt64(_ field: UInt32, _ value: Int64) {
        appendTag(field, .varint)
        appendVarint(UInt64(bitPattern: value))
    }

    /// A `uint32` or enum field.
    mutating func appendUInt32(_ field: UInt32, _ value: UInt32) {
        appendTag(field, .varint)
        appendVarint(UInt64(value))
    }

    mutating func appendBool(_ field: UInt32, _ value: Bool) {
        appendTag(field, .varint)
        bytes.append(value ? 1 : 0)
    }

    /// A nested message field whose bytes `body` appends.
    mutating func appendMessage(_ field: UInt32, _ body: (inout ProtobufWriter) -> Void) {
        appendTag(field, .lengthDelimited)
        let lengthIndex = bytes.count
        bytes.append(0)
        body(&self)
        let length = bytes.count - lengthIndex - 1
        if length < 0x80 {
            bytes[lengthIndex] = UInt8(length)
            return
        }
        var prefix: [UInt8] = []
        var value = UInt64(length)
        while value >= 0x80 {
            prefix.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        prefix.append(UInt8(value))
        bytes.replaceSubrange(lengthIndex..<lengthIndex + 1, with: prefix)
    }

    /// A nested message already encoded (e.g. the resource, encoded once).
    mutating func appendEncodedMessage(_ field: UInt32, _ encoded: [UInt8]) {
        appendBytes(field, encoded)
    }
}
#endif
