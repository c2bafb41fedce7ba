public import Foundation
public import TelemetryKit
import TelemetryKitSupport

/// Adds the local date and time of each event: the eight `TelemetryDeck.Calendar.*` keys of
/// ``Keys``, all `Int` except ``Keys/isWeekend`` (`Bool`).
///
/// Values come from the event's own timestamp (``EventInput/timestamp``), read in
/// `timeZone` with the Gregorian calendar, and mean what TelemetryDeck's SDK v3 sends, so a
/// migrating app's dashboards do not shift: `hourOfDay` is 1–24 (the hour starting at
/// midnight is 1), `weekOfYear` counts Sunday-first weeks where week 1 is the week that holds
/// January 1 (so the last days of December can be in week 1), `dayOfWeek` counts Monday = 1 …
/// Sunday = 7, and `isWeekend` is true on Saturday and Sunday.
///
/// Every value is constant within one local hour, so the processor computes them once per
/// hour and serves later events of that hour from the cache. It computes them from the time
/// zone's offset with calendar arithmetic rather than with Foundation's `Calendar`, whose
/// first use in a process costs more than half a millisecond of an app's launch.
///
/// ```swift
/// let processor = CalendarProcessor(timeZone: TimeZone(identifier: "Europe/Berlin") ?? .gmt)
/// ```
public struct CalendarProcessor: SynchronousEventProcessor {
    /// The time zone in which dates are read.
    public let timeZone: TimeZone
    private let cache = Locked<CalendarHour?>(nil)

    /// Creates the processor.
    ///
    /// - Parameter timeZone: The time zone in which event timestamps are read (default:
    ///   the system's).
    public init(timeZone: TimeZone = .current) {
        self.timeZone = timeZone
    }

    public func process(_ input: inout EventInput, context: inout EventContext) throws {
        context.addParameters(parameters(at: input.timestamp))
    }

    /// The parameters for an event created at `date`.
    public func parameters(at date: Date) -> [String: PayloadValue] {
        cache.withLock { cached in
            if let cached, cached.contains(date) { return cached.parameters }
            let hour = CalendarHour(containing: date, timeZone: timeZone)
            cached = hour
            return hour.parameters
        }
    }
}

/// One local hour and the calendar parameters shared by every moment in it.
struct CalendarHour: Sendable {
    /// Inclusive.
    let start: Date
    /// Exclusive.
    let end: Date
    let parameters: [String: PayloadValue]

    /// The dates the arithmetic below handles: years 0001 through 9999 and then some.
    private static let readableSeconds = -62_000_000_000.0...253_000_000_000.0

    init(containing date: Date, timeZone: TimeZone) {
        let instant = date.timeIntervalSince1970.rounded(.down)
        guard Self.readableSeconds.contains(instant) else {
            (start, end, parameters) = (date, date, [:])
            return
        }
        let seconds = Int64(instant)
        let offset = Int64(timeZone.secondsFromGMT(for: date))
        let (days, secondOfDay) = ISO8601.floorDivision(seconds + offset, by: 86_400)
        let (year, month, day) = ISO8601.civilFromDays(days)
        let dayOfWeek = Self.isoWeekday(days)
        let dayOfYear = Int(days - ISO8601.daysFromCivil(year: year, month: 1, day: 1)) + 1

        // The local hour, cut short where the offset changes (a change within an hour, as
        // Lord Howe's half-hour shift, leaves the instant alone with its values).
        var hourStart = Date(timeIntervalSince1970: Double(seconds - secondOfDay % 3600))
        var hourEnd = hourStart.addingTimeInterval(3600)
        if timeZone.secondsFromGMT(for: hourStart) != Int(offset) { hourStart = date }
        if let transition = timeZone.nextDaylightSavingTimeTransition(after: date), transition < hourEnd {
            hourEnd = transition
        }
        (start, end) = (hourStart, hourEnd)

        typealias Keys = CalendarProcessor.Keys
        parameters = [
            Keys.dayOfMonth: .int(Int64(day)),
            Keys.dayOfWeek: .int(Int64(dayOfWeek)),
            Keys.isWeekend: .bool(dayOfWeek >= 6),
            Keys.dayOfYear: .int(Int64(dayOfYear)),
            Keys.weekOfYear: .int(Int64(Self.week(year: year, dayOfYear: dayOfYear, dayOfWeek: dayOfWeek))),
            Keys.monthOfYear: .int(Int64(month)),
            Keys.quarterOfYear: .int(Int64((month - 1) / 3 + 1)),
            Keys.hourOfDay: .int(secondOfDay / 3600 + 1),
        ]
    }

    func contains(_ date: Date) -> Bool {
        date >= start && date < end
    }

    /// Monday = 1 … Sunday = 7 for a day counted from 1970-01-01 (a Thursday).
    static func isoWeekday(_ daysSince1970: Int64) -> Int {
        Int(ISO8601.floorDivision(daysSince1970 + 3, by: 7).remainder) + 1
    }

    /// The week of the year as TelemetryDeck v3 counts it (Foundation's Gregorian calendar with
    /// its defaults: weeks start on Sunday, and week 1 is the one holding January 1). A day
    /// whose week runs into the next year is in that year's week 1.
    static func week(year: Int, dayOfYear: Int, dayOfWeek: Int) -> Int {
        let sundayBased = dayOfWeek % 7  // Sunday 0, Monday 1 … Saturday 6
        let januaryFirst = (sundayBased - (dayOfYear - 1) % 7 + 7) % 7
        let isLeap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0)
        let daysInYear = isLeap ? 366 : 365
        if dayOfYear + (6 - sundayBased) > daysInYear { return 1 }
        return (dayOfYear - 1 + januaryFirst) / 7 + 1
    }
}
