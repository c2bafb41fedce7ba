package import TelemetryKit

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// The JSON form of an ``Event``, fast and exact: what durable caches store and read back.
///
/// It keeps everything an event has (its `id`, milliseconds, a boolean `isTestMode`), so it is
/// not the TelemetryDeck wire form: the HTTP transmitter writes that (whole seconds, the string
/// `"true"`/`"false"`, no `id`) with this codec's payload and string writers.
///
/// It writes the keys of `Event`'s `Codable` form (so `JSONDecoder` reads its output too), with
/// two differences:
/// - Doubles are always written with a fraction or an exponent (`1.0`, `1e+20`), and numbers
///   are read back as `.double` exactly when they have one, so `.double(1)` does not come back
///   as `.int(1)` (`JSONEncoder` writes `1.0` as `1`).
/// - It is 10–25 times faster than `JSONEncoder`/`JSONDecoder` for a typical event, which
///   keeps cache appends, reads and request bodies within their budgets.
///
/// Non-finite doubles have no JSON form: they are written as the strings `"NaN"`, `"Infinity"`
/// and `"-Infinity"` (as on the wire) and read back as those strings.
///
/// ```swift
/// let line = EventJSONCodec.encode(event)
/// let back = try EventJSONCodec.decode(line)   // == event
/// ```
package enum EventJSONCodec {
    /// The event as UTF-8 JSON, on one line (control characters are escaped).
    package static func encode(_ event: Event) -> [UInt8] {
        var buffer: [UInt8] = []
        // An upper bound of the entry count (shadowed keys counted twice) without lookups.
        buffer.reserveCapacity(
            256 + (event.sharedPayload.count + event.ownPayload.count) * 48
        )
        encode(event, into: &buffer)
        return buffer
    }

    /// Appends the event as UTF-8 JSON to `buffer`.
    package static func encode(_ event: Event, into buffer: inout [UInt8]) {
        buffer.append(contentsOf: #"{"id":"#.utf8)
        appendUUID(event.id, to: &buffer)
        buffer.append(contentsOf: #","appID":"#.utf8)
        appendString(event.appID, to: &buffer)
        buffer.append(contentsOf: #","type":"#.utf8)
        appendString(event.type, to: &buffer)
        buffer.append(contentsOf: #","clientUser":"#.utf8)
        appendString(event.clientUser, to: &buffer)
        if let sessionID = event.sessionID {
            buffer.append(contentsOf: #","sessionID":"#.utf8)
            appendString(sessionID, to: &buffer)
        }
        buffer.append(contentsOf: #","receivedAt":""#.utf8)
        buffer.append(contentsOf: ISO8601.string(from: event.receivedAt).utf8)
        buffer.append(contentsOf: #"","payload":"#.utf8)
        appendPayload(of: event, to: &buffer)
        if let floatValue = event.floatValue, floatValue.isFinite {
            buffer.append(contentsOf: #","floatValue":"#.utf8)
            appendDouble(floatValue, to: &buffer)
        }
        buffer.append(contentsOf: #","isTestMode":"#.utf8)
        buffer.append(contentsOf: (event.isTestMode == "true" ? "true}" : "false}").utf8)
    }

    /// Reads one event from UTF-8 JSON. Whitespace around the object is allowed; anything
    /// else after it is an error.
    package static func decode(_ bytes: UnsafeRawBufferPointer) throws(EventJSONCodecError) -> Event {
        var reader = JSONByteReader(bytes)
        let event = try reader.readEvent()
        try reader.expectEnd(after: "event")
        return event
    }

    /// Reads one event from UTF-8 JSON held in an array, an array slice or `Data`.
    package static func decode(_ bytes: some ContiguousBytes) throws(EventJSONCodecError) -> Event {
        try JSONByteReader.reading(bytes) { reader throws(EventJSONCodecError) in
            let event = try reader.readEvent()
            try reader.expectEnd(after: "event")
            return event
        }
    }

    // MARK: Writing

    /// The encoded entries of the last shared payload layer seen (see ``SharedFragments``).
    private static let sharedFragments = SharedFragments()

    /// Writes the payload as a JSON object (the merged view, values as native JSON types):
    /// the part every JSON form of an event shares, so the HTTP transmitter's wire forms reuse
    /// it (and its cached encoding of the shared layer) instead of repeating it.
    package static func appendPayload(of event: Event, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "{"))
        var first = true
        if let fragment = sharedFragments.fragment(for: event) {
            // The shared layer's entries, encoded once for every event that shares it.
            buffer.append(contentsOf: fragment)
            first = fragment.isEmpty
            for (key, value) in event.ownPayload {
                appendEntry(key, value, first: &first, to: &buffer)
            }
        } else {
            event.forEachPayloadEntry { key, value in
                appendEntry(key, value, first: &first, to: &buffer)
            }
        }
        buffer.append(UInt8(ascii: "}"))
    }

    /// The payload's entries in two parts, each without braces, for a cache that stores the
    /// shared layer (the processors' metadata) once for all the events that share it: returns
    /// the shared layer's encoding, the same array for every event with the same layer
    /// (compare it first by identity), and appends the entries above it to `upper` (the
    /// caller's row buffer, so a row costs one allocation when the caller reserved
    /// ``upperEntriesCapacity(of:)`` for them). The reader must keep the two parts as layers,
    /// the upper one winning (as `Event(sharedPayload:ownPayload:)` does): an upper entry may
    /// repeat a shared key, so no lookup per upper key is made to find out. When the payload
    /// has no shared layer, it returns nil and appends every entry.
    package static func appendPayloadLayers(of event: Event, upperTo upper: inout [UInt8]) -> [UInt8]? {
        var first = true
        if let fragment = sharedFragments.fragment(for: event, layersKeptApart: true) {
            for (key, value) in event.ownPayload { appendEntry(key, value, first: &first, to: &upper) }
            return fragment
        }
        upper.reserveCapacity(upper.count + event.sharedPayload.count * 48 + upperEntriesCapacity(of: event))
        event.forEachPayloadEntry { key, value in appendEntry(key, value, first: &first, to: &upper) }
        return nil
    }

    /// Bytes to reserve for the entries above the shared layer (about 32 each).
    package static func upperEntriesCapacity(of event: Event) -> Int {
        event.ownPayload.count * 32
    }

    /// Writes `"key":value`, preceded by a comma unless it is the first entry.
    static func appendEntry(_ key: String, _ value: PayloadValue, first: inout Bool, to buffer: inout [UInt8]) {
        if !first { buffer.append(UInt8(ascii: ",")) }
        first = false
        appendString(key, to: &buffer)
        buffer.append(UInt8(ascii: ":"))
        switch value {
        case .string(let string): appendString(string, to: &buffer)
        case .int(let int): appendInteger(int, to: &buffer)
        case .double(let double): appendDouble(double, to: &buffer)
        case .bool(let bool): buffer.append(contentsOf: (bool ? "true" : "false").utf8)
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// Writes a UUID in `uuidString` form (uppercase), quoted.
    package static func appendUUID(_ id: UUID, to buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "\""))
        withUnsafeBytes(of: id.uuid) { bytes in
            hexDigits.withUnsafeBufferPointer { hex in
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 { buffer.append(UInt8(ascii: "-")) }
                    let byte = bytes[index]
                    buffer.append(hex[Int(byte >> 4)])
                    buffer.append(hex[Int(byte & 0x0F)])
                }
            }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    /// Writes a JSON string literal, escaping quotes, backslashes and control characters;
    /// runs without anything to escape are copied whole.
    package static func appendString(_ string: String, to buffer: inout [UInt8]) {
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
                appendEscape(byte, to: &buffer)
                index += 1
                runStart = index
            }
            if runStart < count {
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<count]))
            }
        }
        buffer.append(UInt8(ascii: "\""))
    }

    private static func appendEscape(_ byte: UInt8, to buffer: inout [UInt8]) {
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
            buffer.append(hexDigits[Int(byte & 0x0F)])
        }
    }

    /// Writes a double so that it reads back as a double: `description` always has a `.` or
    /// an exponent for finite values (`1.0`, `1e-05`, `1e+20`), all valid JSON numbers.
    /// Non-finite values are written as the strings `"NaN"`, `"Infinity"`, `"-Infinity"`.
    package static func appendDouble(_ value: Double, to buffer: inout [UInt8]) {
        if value.isFinite {
            buffer.append(contentsOf: value.description.utf8)
        } else {
            appendString(value.isNaN ? "NaN" : (value < 0 ? "-Infinity" : "Infinity"), to: &buffer)
        }
    }

    /// Writes an integer without building a `String`.
    package static func appendInteger(_ value: Int64, to buffer: inout [UInt8]) {
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
}

/// Remembers the JSON of the last shared payload layer (the processors' metadata, one
/// dictionary for every event until a fact changes), so a batch or a stream of appends
/// encodes those ~50 entries once instead of once per event.
///
/// Identity is the dictionary's storage address; the cache keeps the dictionary alive, so the
/// address cannot be reused for other contents while it is cached.
private final class SharedFragments: Sendable {
    private struct Entry {
        var identity: UInt
        var source: [String: PayloadValue]
        var bytes: [UInt8]
    }

    private let last = Locked<Entry?>(nil)

    /// The encoded shared entries of `event` (without braces), or nil when the event has no
    /// shared layer or (unless `layersKeptApart`: the reader lets upper entries win) one of its
    /// own entries shadows a shared key.
    func fragment(for event: Event, layersKeptApart: Bool = false) -> [UInt8]? {
        let layer = layersKeptApart ? event.sharedLayerKeptApart() : event.unshadowedSharedLayer()
        guard let (identity, shared) = layer else { return nil }
        if let hit = last.withLock({ $0?.identity == identity ? $0?.bytes : nil }) { return hit }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(shared.count * 48)
        var first = true
        for (key, value) in shared {
            EventJSONCodec.appendEntry(key, value, first: &first, to: &bytes)
        }
        last.set(Entry(identity: identity, source: shared, bytes: bytes))
        return bytes
    }
}

/// Why a byte sequence is not an event in `EventJSONCodec`'s format.
package struct EventJSONCodecError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    package var message: String
    /// The byte offset where reading stopped.
    package var offset: Int

    package init(_ message: String, offset: Int) {
        self.message = message
        self.offset = offset
    }

    package var description: String { "Invalid event JSON at byte \(offset): \(message)" }
}

// The encoders' view of an event's layers (this codec and the OTLP encoder).
extension Event {
    /// The shared layer when no upper entry shadows one of its keys, with an identity that
    /// the events sharing its dictionary storage have in common (keep `entries` while the
    /// identity is kept, so the storage is not reused). The payload is then its entries plus
    /// the event's own, so a writer encodes the ~50 metadata entries once
    /// for a run of events (`EventJSONCodec`, the OTLP encoder); `nil` otherwise.
    package func unshadowedSharedLayer() -> (identity: UInt, entries: [String: PayloadValue])? {
        guard PayloadStorageIdentity.isAvailable, !sharedPayload.isEmpty, sharedKeysShadowed().isEmpty else {
            return nil
        }
        return (PayloadStorageIdentity.of(sharedPayload), sharedPayload)
    }

    /// The shared layer, with its identity as in ``unshadowedSharedLayer()``, for a writer
    /// whose reader keeps the layers apart and lets the upper entries win: there an upper
    /// entry may repeat a shared key, so this skips the lookup of every upper key in the
    /// shared layer that ``unshadowedSharedLayer()`` makes.
    package func sharedLayerKeptApart() -> (identity: UInt, entries: [String: PayloadValue])? {
        guard PayloadStorageIdentity.isAvailable, !sharedPayload.isEmpty else { return nil }
        return (PayloadStorageIdentity.of(sharedPayload), sharedPayload)
    }
}
