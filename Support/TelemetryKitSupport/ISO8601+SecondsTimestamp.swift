package import TelemetryKit

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

// TelemetryDeck's wire timestamp: written by the HTTP transmitter's encoder, checked by the
// collector. The millisecond form that events and caches use stays with `ISO8601` in the core.
extension ISO8601 {
    /// Appends `date` as `yyyy-MM-dd'T'HH:mm:ss+0000` (UTC, unquoted), e.g.
    /// `2026-11-23T19:33:43+0000`.
    ///
    /// This is the only timestamp form TelemetryDeck's ingest service reads: it decodes with a
    /// `DateFormatter` of `yyyy-MM-dd'T'HH:mm:ssZ`, which refuses fractional seconds and `Z`.
    /// The fraction is dropped (rounded down, as `DateFormatter` does), so an event keeps the
    /// second it happened in. Dates outside years 0000…9999 have no such form and are written
    /// as the epoch.
    package static func appendSecondsTimestamp(_ date: Date, to buffer: inout [UInt8]) {
        let interval = date.timeIntervalSince1970.rounded(.down)
        // 0000-01-01T00:00:00Z ..< 10000-01-01T00:00:00Z
        let seconds: Int64 =
            interval.isFinite && interval >= -62_167_219_200 && interval < 253_402_300_800 ? Int64(interval) : 0
        appendDateTime(secondsSince1970: seconds, to: &buffer)
        buffer.append(contentsOf: "+0000".utf8)
    }

    /// Parses `yyyy-MM-dd'T'HH:mm:ss±HHMM` (e.g. `2026-11-23T19:33:43+0000`) and nothing else:
    /// no fraction, no `Z`, no colon in the offset, a real calendar date. Nil otherwise.
    ///
    /// The collector checks bodies with it the way TelemetryDeck's service does, so a wire
    /// regression (a fraction, a `Z`) is refused on the developer's machine first.
    package static func date(fromSecondsTimestamp string: String) -> Date? {
        let utf8 = Array(string.utf8)
        guard utf8.count == 24 else { return nil }
        func number(_ range: Range<Int>) -> Int? { decimal(utf8, range) }
        guard utf8[4] == 45, utf8[7] == 45, utf8[10] == 84, utf8[13] == 58, utf8[16] == 58,
            utf8[19] == 43 || utf8[19] == 45,
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            let offsetHours = number(20..<22), let offsetMinutes = number(22..<24),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 60,
            offsetHours < 24, offsetMinutes < 60
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        // A day past the month's end (2026-02-30) would land in the next month: refuse it.
        guard civilFromDays(days) == (year, month, day) else { return nil }
        let offset = Int64((offsetHours * 60 + offsetMinutes) * 60) * (utf8[19] == 45 ? -1 : 1)
        let seconds = days * 86_400 + Int64(hour * 3600 + minute * 60 + second) - offset
        return Date(timeIntervalSince1970: Double(seconds))
    }
}
