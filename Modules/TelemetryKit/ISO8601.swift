#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// ISO 8601 timestamps in UTC with millisecond precision (`2024-06-15T14:00:00.123Z`).
///
/// Formatting is done by hand from the civil date: it is several times faster than a
/// format style and needs no locale data.
package enum ISO8601 {
    /// The decimal number written in `utf8[range]`, or nil when a byte there is not a digit.
    package static func decimal(_ utf8: [UInt8], _ range: Range<Int>) -> Int? {
        var value = 0
        for index in range {
            let byte = utf8[index]
            guard byte >= 48, byte <= 57 else { return nil }
            value = value * 10 + Int(byte - 48)
        }
        return value
    }

    /// `date` in whole milliseconds, the precision events are stored and sent with: the first
    /// millisecond not before it, so that an event's time is never earlier than the moment it
    /// was created (TelemetryDeck v3 keeps the exact moment; a test that notes the time before
    /// sending expects the event at or after it).
    package static func wholeMilliseconds(notBefore date: Date) -> Date {
        let exact = date.timeIntervalSince1970 * 1000
        // A time already on a millisecond but for the binary fraction's error stays there.
        let milliseconds = exact - exact.rounded(.down) > 0.001 ? exact.rounded(.up) : exact.rounded(.down)
        guard milliseconds.isFinite else { return date }
        return Date(timeIntervalSince1970: milliseconds / 1000)
    }

    /// The dates with a four-digit year, 0000-01-01T00:00:00.000Z through
    /// 9999-12-31T23:59:59.999Z, in milliseconds since 1970.
    static let writableMilliseconds: ClosedRange<Int64> = -62_167_219_200_000...253_402_300_799_999

    /// Whether `string(from:)` writes `date` as it is: a reader refuses other dates rather than
    /// let them come back as another date after a round trip through a cache or the wire.
    package static func canWrite(_ date: Date) -> Bool {
        let totalMilliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        return totalMilliseconds.isFinite && Double(writableMilliseconds.lowerBound) <= totalMilliseconds
            && totalMilliseconds <= Double(writableMilliseconds.upperBound)
    }

    /// Formats `date` as `yyyy-MM-ddTHH:mm:ss.SSSZ` in UTC (the Unix epoch for a date outside
    /// the four-digit years).
    package static func string(from date: Date) -> String {
        // Four-digit years only: a later date would be written with its year cut to four digits.
        guard canWrite(date) else { return "1970-01-01T00:00:00.000Z" }
        let (seconds, millis) = floorDivision(Int64((date.timeIntervalSince1970 * 1000).rounded()), by: 1000)
        var bytes = [UInt8]()
        bytes.reserveCapacity(24)
        appendDateTime(secondsSince1970: seconds, to: &bytes)
        bytes.append(46)  // .
        appendDigits(Int(millis), count: 3, to: &bytes)
        bytes.append(90)  // Z
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Parses `yyyy-MM-ddTHH:mm:ss[.SSS…]Z` (UTC). Returns nil for anything else.
    package static func date(from string: String) -> Date? {
        let utf8 = Array(string.utf8)
        guard utf8.count >= 20, utf8.last == 90 else { return nil }
        func number(_ range: Range<Int>) -> Int? { decimal(utf8, range) }
        guard utf8[4] == 45, utf8[7] == 45, utf8[10] == 84, utf8[13] == 58, utf8[16] == 58,
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var milliseconds = 0
        if utf8.count > 20 {
            guard utf8[19] == 46, utf8.count > 21 else { return nil }
            var scale = 100
            for index in 20..<(utf8.count - 1) {
                let byte = utf8[index]
                guard byte >= 48, byte <= 57 else { return nil }
                milliseconds += Int(byte - 48) * scale
                scale /= 10
            }
        } else if utf8[19] != 90 {
            return nil
        }
        let days = daysFromCivil(year: year, month: month, day: day)
        let totalMilliseconds =
            (days * 86_400 + Int64(hour * 3600 + minute * 60 + second)) * 1000 + Int64(milliseconds)
        // A leap second on 9999-12-31 falls in year 10000, which `string(from:)` cannot write.
        guard writableMilliseconds.contains(totalMilliseconds) else { return nil }
        return Date(timeIntervalSince1970: Double(totalMilliseconds) / 1000)
    }

    /// `value` divided by `divisor` (positive), rounded toward the past: the remainder is never
    /// negative, so a time before 1970 stays in its own day or second.
    package static func floorDivision(_ value: Int64, by divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

    /// Appends `yyyy-MM-ddTHH:mm:ss` in UTC for whole seconds since 1970 (years 0000…9999): the
    /// part both the millisecond form and TelemetryDeck's wire form begin with.
    package static func appendDateTime(secondsSince1970 seconds: Int64, to buffer: inout [UInt8]) {
        let (days, secondOfDay) = floorDivision(seconds, by: 86_400)
        let (year, month, day) = civilFromDays(days)
        let time = Int(secondOfDay)
        appendDigits(year, count: 4, to: &buffer)
        buffer.append(45)  // -
        appendDigits(month, count: 2, to: &buffer)
        buffer.append(45)
        appendDigits(day, count: 2, to: &buffer)
        buffer.append(84)  // T
        appendDigits(time / 3600, count: 2, to: &buffer)
        buffer.append(58)  // :
        appendDigits(time / 60 % 60, count: 2, to: &buffer)
        buffer.append(58)
        appendDigits(time % 60, count: 2, to: &buffer)
    }

    /// Appends `value` as exactly `count` decimal digits (leading zeros; higher digits dropped).
    private static func appendDigits(_ value: Int, count: Int, to buffer: inout [UInt8]) {
        var divisor = 1
        for _ in 1..<count { divisor *= 10 }
        while divisor > 0 {
            buffer.append(UInt8(48 + (value / divisor) % 10))
            divisor /= 10
        }
    }

    // Howard Hinnant's days-from-civil algorithms (proleptic Gregorian calendar).
    package static func civilFromDays(_ daysSinceEpoch: Int64) -> (Int, Int, Int) {
        let z = daysSinceEpoch + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (Int(year), Int(month), Int(day))
    }

    package static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
