public import Foundation
public import TelemetryKit

/// Adds the local date and time of each event: the eight `TelemetryDeck.Calendar.*` keys of
/// ``Keys``, all `Int` except ``Keys/isWeekend`` (`Bool`).
///
/// Values come from the event's own timestamp (``EventInput/timestamp``), read in
/// `timeZone` with the Gregorian calendar and ISO 8601 week rules (weeks start on Monday;
/// week 1 is the week with the year's first Thursday). `dayOfWeek` counts Monday = 1 …
/// Sunday = 7, `isWeekend` is true on Saturday and Sunday, `hourOfDay` is 0–23.
///
/// Every value is constant within one local hour, so the processor computes them once per
/// hour and serves later events of that hour from the cache: the calendar database is
/// consulted about once an hour, not per event.
///
/// ```swift
/// let processor = CalendarProcessor(timeZone: TimeZone(identifier: "Europe/Berlin") ?? .gmt)
/// ```
public struct CalendarProcessor: SynchronousEventProcessor {
    /// The time zone in which dates are read.
    public let timeZone: TimeZone
    private let calendar: Calendar
    private let cache = Locked<CalendarHour?>(nil)

    /// Creates the processor.
    ///
    /// - Parameter timeZone: The time zone in which event timestamps are read (default:
    ///   the system's).
    public init(timeZone: TimeZone = .current) {
        self.timeZone = timeZone
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        calendar.firstWeekday = 2
        calendar.minimumDaysInFirstWeek = 4
        self.calendar = calendar
    }

    public func process(_ input: inout EventInput, context: inout EventContext) throws {
        context.addParameters(parameters(at: input.timestamp))
    }

    /// The parameters for an event created at `date`.
    public func parameters(at date: Date) -> [String: PayloadValue] {
        cache.withLock { cached in
            if let cached, cached.contains(date) { return cached.parameters }
            let hour = CalendarHour(containing: date, calendar: calendar)
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

    init(containing date: Date, calendar: Calendar) {
        if let interval = calendar.dateInterval(of: .hour, for: date) {
            start = interval.start
            end = interval.end
        } else {
            // Without a known hour the values hold for this instant only.
            start = date
            end = date
        }
        let components = calendar.dateComponents([.day, .weekday, .weekOfYear, .month, .hour], from: date)
        var parameters = [String: PayloadValue](minimumCapacity: CalendarProcessor.Keys.all.count)
        if let day = components.day { parameters[CalendarProcessor.Keys.dayOfMonth] = .int(Int64(day)) }
        if let weekday = components.weekday {
            // Foundation counts Sunday = 1 … Saturday = 7; the spec counts Monday = 1 … Sunday = 7.
            let dayOfWeek = (weekday + 5) % 7 + 1
            parameters[CalendarProcessor.Keys.dayOfWeek] = .int(Int64(dayOfWeek))
            parameters[CalendarProcessor.Keys.isWeekend] = .bool(dayOfWeek >= 6)
        }
        if let dayOfYear = calendar.ordinality(of: .day, in: .year, for: date) {
            parameters[CalendarProcessor.Keys.dayOfYear] = .int(Int64(dayOfYear))
        }
        if let week = components.weekOfYear { parameters[CalendarProcessor.Keys.weekOfYear] = .int(Int64(week)) }
        if let month = components.month {
            parameters[CalendarProcessor.Keys.monthOfYear] = .int(Int64(month))
            parameters[CalendarProcessor.Keys.quarterOfYear] = .int(Int64((month - 1) / 3 + 1))
        }
        if let hour = components.hour { parameters[CalendarProcessor.Keys.hourOfDay] = .int(Int64(hour)) }
        self.parameters = parameters
    }

    func contains(_ date: Date) -> Bool {
        date >= start && date < end
    }
}
