#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The event queue TelemetryDeck's Swift SDK left on disk: `telemetrysignalcache.json` (v3)
/// or `telemetrysignalcache` (v2), a JSON array of events.
///
/// Read leniently, as whatever either SDK may have written:
/// - `receivedAt`: a number (`JSONEncoder`'s default: seconds since 2001-01-01, as v2 wrote
///   it) or a string (v3's `yyyy-MM-dd'T'HH:mm:ssZ`, i.e. `2026-11-23T19:33:43+0000`, and
///   ISO 8601 with `Z`, `±HH:MM` and fractional seconds);
/// - `isTestMode`: `"true"`/`"false"` (any case) or a JSON boolean; absent means false;
/// - `payload`: an object of strings, numbers and booleans (other values are dropped), or
///   v1's array of `"key:value"` strings; absent means empty;
/// - `sessionID` and `floatValue` may be absent or null.
///
/// An element without an app id, a type, a user or a readable date is skipped and counted;
/// a file that is not a JSON array throws.
enum TelemetryDeckEventFile {
    /// The events read from one file.
    struct Contents: Sendable {
        var events: [Event]
        /// Elements that were not readable events.
        var skippedEvents: Int
        /// Payload values that were not strings, numbers or booleans.
        var droppedValues: Int
    }

    /// Decodes a whole file. Throws when it is not a JSON array.
    static func decode(_ data: Data) throws -> Contents {
        let entries = try JSONDecoder().decode([Lenient<LegacyEvent>].self, from: data)
        var contents = Contents(events: [], skippedEvents: 0, droppedValues: 0)
        contents.events.reserveCapacity(entries.count)
        for entry in entries {
            guard let legacy = entry.value else {
                contents.skippedEvents += 1
                continue
            }
            contents.events.append(legacy.event)
            contents.droppedValues += legacy.droppedValues
        }
        return contents
    }

    /// One element of the file.
    private struct LegacyEvent: Decodable {
        let event: Event
        let droppedValues: Int

        private enum CodingKeys: String, CodingKey {
            case appID, type, clientUser, sessionID, receivedAt, payload, floatValue, isTestMode
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            let type = try container.decode(String.self, forKey: .type)
            guard !type.isEmpty else {
                throw DecodingError.dataCorruptedError(forKey: .type, in: container, debugDescription: "empty type")
            }
            let (payload, dropped) = Self.payload(in: container)
            droppedValues = dropped
            event = Event(
                appID: try container.decode(String.self, forKey: .appID),
                type: type,
                clientUser: try container.decode(String.self, forKey: .clientUser),
                sessionID: (try? container.decodeIfPresent(String.self, forKey: .sessionID)) ?? nil,
                receivedAt: ISO8601.wholeMilliseconds(notBefore: try Self.date(in: container)),
                payload: payload,
                floatValue: Self.floatValue(in: container),
                isTestMode: Self.isTestMode(in: container)
            )
        }

        private static func date(in container: KeyedDecodingContainer<CodingKeys>) throws -> Date {
            if let seconds = try? container.decode(Double.self, forKey: .receivedAt), seconds.isFinite {
                return Date(timeIntervalSinceReferenceDate: seconds)
            }
            let text = try container.decode(String.self, forKey: .receivedAt)
            guard let date = LegacyTimestamp.date(from: text) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .receivedAt,
                    in: container,
                    debugDescription: "unreadable date '\(text)'"
                )
            }
            return date
        }

        private static func payload(
            in container: KeyedDecodingContainer<CodingKeys>
        ) -> (payload: [String: PayloadValue], dropped: Int) {
            if let values = try? container.decode([String: Lenient<PayloadValue>].self, forKey: .payload) {
                let kept = values.compactMapValues(\.value)
                return (kept, values.count - kept.count)
            }
            if let tags = try? container.decode([String].self, forKey: .payload) {
                var payload: [String: PayloadValue] = [:]
                var dropped = 0
                for tag in tags {
                    guard let colon = tag.firstIndex(of: ":") else {
                        dropped += 1
                        continue
                    }
                    payload[String(tag[..<colon])] = .string(String(tag[tag.index(after: colon)...]))
                }
                return (payload, dropped)
            }
            // Absent or null: an empty payload. Anything else (a number, say) counts as one dropped value.
            let isAbsent = !container.contains(.payload) || ((try? container.decodeNil(forKey: .payload)) ?? true)
            return ([:], isAbsent ? 0 : 1)
        }

        private static func floatValue(in container: KeyedDecodingContainer<CodingKeys>) -> Double? {
            if let value = try? container.decodeIfPresent(Double.self, forKey: .floatValue) { return value }
            if let text = try? container.decode(String.self, forKey: .floatValue) { return Double(text) }
            return nil
        }

        private static func isTestMode(in container: KeyedDecodingContainer<CodingKeys>) -> Bool {
            if let flag = try? container.decode(Bool.self, forKey: .isTestMode) { return flag }
            if let text = try? container.decode(String.self, forKey: .isTestMode) { return text.lowercased() == "true" }
            return false
        }
    }
}

/// The date strings TelemetryDeck's SDKs wrote: `yyyy-MM-dd'T'HH:mm:ss` with optional
/// fractional seconds and a zone of `Z`, `±HHMM` or `±HH:MM`.
enum LegacyTimestamp {
    static func date(from text: String) -> Date? {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 20 else { return nil }
        // The zone starts at the first 'Z', '+' or '-' after the time of day.
        guard let zoneStart = utf8[19...].firstIndex(where: { $0 == 90 || $0 == 43 || $0 == 45 }) else { return nil }
        let local = String(decoding: utf8[..<zoneStart], as: UTF8.self)
        guard let utcReading = ISO8601.date(from: local + "Z") else { return nil }
        let zone = Array(utf8[zoneStart...])
        if zone == [90] { return utcReading }
        // ±HHMM or ±HH:MM
        let digits = zone.dropFirst().filter { $0 != 58 }
        guard digits.count == 4, digits.allSatisfy({ $0 >= 48 && $0 <= 57 }),
            zone.count == 5 || (zone.count == 6 && zone[3] == 58)
        else { return nil }
        let values = digits.map { Int($0 - 48) }
        let hours = values[0] * 10 + values[1]
        let minutes = values[2] * 10 + values[3]
        guard hours < 24, minutes < 60 else { return nil }
        let offset = Double((hours * 60 + minutes) * 60) * (zone[0] == 45 ? -1 : 1)
        // A local time east of UTC is that much earlier in UTC.
        return utcReading.addingTimeInterval(-offset)
    }
}
