public import TelemetryKit

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Encodes events as the ingest API's JSON, several times faster than `JSONEncoder`.
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

    /// Appends the JSON object of one event to `buffer`.
    public static func encode(_ event: Event, into buffer: inout [UInt8]) {
        buffer.append(contentsOf: #"{"id":""#.utf8)
        writeUUID(event.id, into: &buffer)
        buffer.append(contentsOf: #"","appID":"#.utf8)
        writeString(event.appID, into: &buffer)
        buffer.append(contentsOf: #","type":"#.utf8)
        writeString(event.type, into: &buffer)
        buffer.append(contentsOf: #","clientUser":"#.utf8)
        writeString(event.clientUser, into: &buffer)
        if let sessionID = event.sessionID {
            buffer.append(contentsOf: #","sessionID":"#.utf8)
            writeString(sessionID, into: &buffer)
        }
        buffer.append(contentsOf: #","receivedAt":""#.utf8)
        buffer.append(contentsOf: ISO8601.string(from: event.receivedAt).utf8)
        buffer.append(contentsOf: #"","payload":{"#.utf8)
        var firstEntry = true
        event.forEachPayloadEntry { key, value in
            if !firstEntry { buffer.append(UInt8(ascii: ",")) }
            firstEntry = false
            writeString(key, into: &buffer)
            buffer.append(UInt8(ascii: ":"))
            writeValue(value, into: &buffer)
        }
        buffer.append(UInt8(ascii: "}"))
        if let floatValue = event.floatValue, floatValue.isFinite {
            buffer.append(contentsOf: #","floatValue":"#.utf8)
            writeDouble(floatValue, into: &buffer)
        }
        buffer.append(contentsOf: event.isTestMode ? #","isTestMode":true}"#.utf8 : #","isTestMode":false}"#.utf8)
    }

    @inline(__always)
    private static func writeValue(_ value: PayloadValue, into buffer: inout [UInt8]) {
        switch value {
        case .string(let string):
            writeString(string, into: &buffer)
        case .int(let int):
            writeInteger(int, into: &buffer)
        case .double(let double):
            if double.isFinite {
                writeDouble(double, into: &buffer)
            } else {
                writeString(value.stringValue, into: &buffer)
            }
        case .bool(let bool):
            buffer.append(contentsOf: bool ? "true".utf8 : "false".utf8)
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Writes the uppercase `8-4-4-4-12` form without building a `String`.
    @inline(__always)
    private static func writeUUID(_ id: UUID, into buffer: inout [UInt8]) {
        withUnsafeBytes(of: id.uuid) { bytes in
            hexDigits.withUnsafeBufferPointer { hex in
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 { buffer.append(UInt8(ascii: "-")) }
                    let byte = bytes[index]
                    buffer.append(hex[Int(byte >> 4)])
                    buffer.append(hex[Int(byte & 0x0f)])
                }
            }
        }
    }

    /// Writes `value` as a JSON number: Swift's shortest round-tripping form (`0.1`, `1e-05`,
    /// `1e+20`), which is valid JSON for every finite value.
    @inline(__always)
    private static func writeDouble(_ value: Double, into buffer: inout [UInt8]) {
        buffer.append(contentsOf: value.description.utf8)
    }

    @inline(__always)
    private static func writeInteger(_ value: Int64, into buffer: inout [UInt8]) {
        if value >= 0 && value < 10 {
            buffer.append(UInt8(ascii: "0") + UInt8(value))
            return
        }
        // Digits are produced backwards into a fixed scratch area; Int64.min has 20 characters.
        var scratch: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &scratch) { digits in
            var magnitude = value.magnitude
            var index = digits.count
            repeat {
                index -= 1
                digits[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                index -= 1
                digits[index] = UInt8(ascii: "-")
            }
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: digits[index...]))
        }
    }

    /// Writes a quoted JSON string, copying runs that need no escaping in one go.
    @inline(__always)
    private static func writeString(_ string: String, into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            var runStart = 0
            var index = 0
            let count = bytes.count
            while index < count {
                let byte = bytes[index]
                if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                    index += 1
                    continue
                }
                if runStart < index {
                    buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                }
                writeEscape(byte, into: &buffer)
                index += 1
                runStart = index
            }
            if runStart < count {
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<count]))
            }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    private static func writeEscape(_ byte: UInt8, into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""): buffer.append(UInt8(ascii: "\""))
        case UInt8(ascii: "\\"): buffer.append(UInt8(ascii: "\\"))
        case 0x08: buffer.append(UInt8(ascii: "b"))
        case 0x0C: buffer.append(UInt8(ascii: "f"))
        case 0x0A: buffer.append(UInt8(ascii: "n"))
        case 0x0D: buffer.append(UInt8(ascii: "r"))
        case 0x09: buffer.append(UInt8(ascii: "t"))
        default:
            buffer.append(contentsOf: "u00".utf8)
            buffer.append(hexDigits[Int(byte >> 4)])
            buffer.append(hexDigits[Int(byte & 0x0f)])
        }
    }
}
