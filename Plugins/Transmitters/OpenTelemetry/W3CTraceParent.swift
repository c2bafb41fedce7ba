#if OpenTelemetry
/// A W3C Trace Context `traceparent` value: `00-<32 hex trace id>-<16 hex span id>-<2 hex flags>`.
///
/// It is how every swift-distributed-tracing tracer hands its span out (`Instrument.inject`),
/// swift-otel's included, so reading it needs no tracer's types.
public struct W3CTraceParent: Sendable, Hashable {
    /// 32 lowercase hex digits.
    public var traceID: String
    /// 16 lowercase hex digits.
    public var spanID: String
    /// The trace flags (bit 0: sampled).
    public var flags: UInt8

    /// Parses a `traceparent` value; `nil` unless it is well-formed with non-zero ids.
    ///
    /// A version other than `00` is read as the specification says: its first four fields,
    /// whatever follows (version `ff` is invalid).
    public init?(_ value: String) {
        let fields = value.utf8.split(separator: UInt8(ascii: "-"), omittingEmptySubsequences: false)
        guard fields.count >= 4,
            let version = Self.bytes(fromHex: fields[0], count: 1), version[0] != 0xFF,
            version[0] != 0 || fields.count == 4,
            let traceID = Self.bytes(fromHex: fields[1], count: 16), traceID.contains(where: { $0 != 0 }),
            let spanID = Self.bytes(fromHex: fields[2], count: 8), spanID.contains(where: { $0 != 0 }),
            let flags = Self.bytes(fromHex: fields[3], count: 1)
        else { return nil }
        self.traceID = Self.hex(traceID)
        self.spanID = Self.hex(spanID)
        self.flags = flags[0]
    }

    /// The `traceparent` value (version `00`).
    public var headerValue: String {
        "00-\(traceID)-\(spanID)-\(Self.hex([flags]))"
    }

    /// `count` bytes from exactly `2 × count` hex digits (either case), else `nil`.
    static func bytes(fromHex hex: String, count: Int) -> [UInt8]? {
        bytes(fromHex: Substring(hex).utf8, count: count)
    }

    static func bytes(fromHex hex: some Collection<UInt8>, count: Int) -> [UInt8]? {
        guard hex.count == 2 * count else { return nil }
        var result: [UInt8] = []
        result.reserveCapacity(count)
        var high: UInt8?
        for character in hex {
            guard let nibble = nibble(character) else { return nil }
            if let first = high {
                result.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return result
    }

    /// Lowercase hex of `bytes`.
    static func hex(_ bytes: [UInt8]) -> String {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(bytes.count * 2)
        appendHex(bytes, to: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    static func appendHex(_ bytes: [UInt8], to buffer: inout [UInt8]) {
        for byte in bytes {
            buffer.append(hexDigits[Int(byte >> 4)])
            buffer.append(hexDigits[Int(byte & 0x0F)])
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private static func nibble(_ character: UInt8) -> UInt8? {
        switch character {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return character - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return character - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return character - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
#endif
