import TelemetryKit

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Calendar day numbers (days since 1970-01-01) in a time zone given by its UTC offset.
///
/// Computed by hand from the offset so the processor needs no calendar or time-zone data
/// (FoundationEssentials has none). With no fixed offset the C library's `localtime_r`
/// supplies the local offset, daylight saving time included.
struct CalendarDays: Sendable {
    /// Day numbers beyond this (about 27 000 years from 1970) are treated as corrupt.
    static let maximumDayMagnitude = 10_000_000

    /// Seconds east of UTC, or nil for the system's local time zone.
    let fixedOffset: Int?

    /// The UTC offset in seconds at `date`.
    func offset(at date: Date) -> Int {
        if let fixedOffset { return fixedOffset }
        return CalendarDays.localOffset(at: date)
    }

    /// The day number of `date`.
    func day(of date: Date) -> Int {
        let local = date.timeIntervalSince1970 + Double(offset(at: date))
        let day = (local / 86_400).rounded(.down)
        guard day.isFinite else { return 0 }
        return Int(min(max(day, -Double(CalendarDays.maximumDayMagnitude)), Double(CalendarDays.maximumDayMagnitude)))
    }

    /// The first instant of the day after `day`.
    func start(ofDayAfter day: Int, near date: Date) -> Date {
        Date(timeIntervalSince1970: Double(day + 1) * 86_400 - Double(offset(at: date)))
    }

    /// `yyyy-MM-dd` of a day number.
    static func dateString(forDay day: Int) -> String {
        String(ISO8601.string(from: Date(timeIntervalSince1970: Double(day) * 86_400)).prefix(10))
    }

    /// The system's UTC offset at `date`, 0 when it cannot be determined.
    static func localOffset(at date: Date) -> Int {
        #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
        let seconds = date.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite, abs(seconds) < 1e15 else { return 0 }
        var time = time_t(seconds)
        var parts = tm()
        guard localtime_r(&time, &parts) != nil else { return 0 }
        return Int(parts.tm_gmtoff)
        #else
        return 0
        #endif
    }
}
