import Foundation
import TelemetryKit
import TelemetryKitCalendar
import TelemetryKitClient
import Testing

/// Expected calendar values for one instant.
struct CalendarCase: Sendable, CustomTestStringConvertible {
    let label: String
    let timeZone: String
    /// Seconds since 1970 (UTC).
    let instant: TimeInterval
    let dayOfMonth: Int64
    let dayOfWeek: Int64
    let dayOfYear: Int64
    let weekOfYear: Int64
    let isWeekend: Bool
    let monthOfYear: Int64
    let quarterOfYear: Int64
    let hourOfDay: Int64

    var testDescription: String { label }

    var expectedPayload: [String: PayloadValue] {
        [
            "TelemetryDeck.Calendar.dayOfMonth": .int(dayOfMonth),
            "TelemetryDeck.Calendar.dayOfWeek": .int(dayOfWeek),
            "TelemetryDeck.Calendar.dayOfYear": .int(dayOfYear),
            "TelemetryDeck.Calendar.weekOfYear": .int(weekOfYear),
            "TelemetryDeck.Calendar.isWeekend": .bool(isWeekend),
            "TelemetryDeck.Calendar.monthOfYear": .int(monthOfYear),
            "TelemetryDeck.Calendar.quarterOfYear": .int(quarterOfYear),
            "TelemetryDeck.Calendar.hourOfDay": .int(hourOfDay),
        ]
    }
}

private let cases: [CalendarCase] = [
    // 2024-06-15T14:00 in Berlin (CEST, UTC+2) = 12:00Z. A Saturday.
    CalendarCase(
        label: "Saturday 2024-06-15 14:00 Berlin",
        timeZone: "Europe/Berlin",
        instant: 1_718_452_800,
        dayOfMonth: 15,
        dayOfWeek: 6,
        dayOfYear: 167,
        weekOfYear: 24,
        isWeekend: true,
        monthOfYear: 6,
        quarterOfYear: 2,
        hourOfDay: 15
    ),
    // 2024-06-17T09:30Z, a Monday.
    CalendarCase(
        label: "Monday 2024-06-17 09:30 UTC",
        timeZone: "UTC",
        instant: 1_718_616_600,
        dayOfMonth: 17,
        dayOfWeek: 1,
        dayOfYear: 169,
        weekOfYear: 25,
        isWeekend: false,
        monthOfYear: 6,
        quarterOfYear: 2,
        hourOfDay: 10
    ),
    // 2024-06-16T23:59:59Z, a Sunday: the first day of week 25 (weeks start on Sunday); hour 24.
    CalendarCase(
        label: "Sunday 2024-06-16 23:59:59 UTC",
        timeZone: "UTC",
        instant: 1_718_582_399,
        dayOfMonth: 16,
        dayOfWeek: 7,
        dayOfYear: 168,
        weekOfYear: 25,
        isWeekend: true,
        monthOfYear: 6,
        quarterOfYear: 2,
        hourOfDay: 24
    ),
    // 2024-12-31T23:00Z, a Tuesday: day 366 of a leap year, in week 1 (the week of 2025-01-01).
    CalendarCase(
        label: "Tuesday 2024-12-31 23:00 UTC",
        timeZone: "UTC",
        instant: 1_735_686_000,
        dayOfMonth: 31,
        dayOfWeek: 2,
        dayOfYear: 366,
        weekOfYear: 1,
        isWeekend: false,
        monthOfYear: 12,
        quarterOfYear: 4,
        hourOfDay: 24
    ),
    // 2021-01-01T00:00Z, a Friday: week 1 (it holds January 1); the hour from midnight is 1.
    CalendarCase(
        label: "Friday 2021-01-01 00:00 UTC",
        timeZone: "UTC",
        instant: 1_609_459_200,
        dayOfMonth: 1,
        dayOfWeek: 5,
        dayOfYear: 1,
        weekOfYear: 1,
        isWeekend: false,
        monthOfYear: 1,
        quarterOfYear: 1,
        hourOfDay: 1
    ),
    // 2024-01-01T00:00Z, a Monday: week 1.
    CalendarCase(
        label: "Monday 2024-01-01 00:00 UTC",
        timeZone: "UTC",
        instant: 1_704_067_200,
        dayOfMonth: 1,
        dayOfWeek: 1,
        dayOfYear: 1,
        weekOfYear: 1,
        isWeekend: false,
        monthOfYear: 1,
        quarterOfYear: 1,
        hourOfDay: 1
    ),
    // 2023-01-01T12:00Z, a Sunday: week 1, the hour from noon is 13.
    CalendarCase(
        label: "Sunday 2023-01-01 12:00 UTC",
        timeZone: "UTC",
        instant: 1_672_574_400,
        dayOfMonth: 1,
        dayOfWeek: 7,
        dayOfYear: 1,
        weekOfYear: 1,
        isWeekend: true,
        monthOfYear: 1,
        quarterOfYear: 1,
        hourOfDay: 13
    ),
    // 2024-06-15T23:30Z is already Sunday 05:00 in Kolkata (UTC+5:30).
    CalendarCase(
        label: "Saturday 23:30 UTC is Sunday 05:00 in Kolkata",
        timeZone: "Asia/Kolkata",
        instant: 1_718_494_200,
        dayOfMonth: 16,
        dayOfWeek: 7,
        dayOfYear: 168,
        weekOfYear: 25,
        isWeekend: true,
        monthOfYear: 6,
        quarterOfYear: 2,
        hourOfDay: 6
    ),
    // 2024-10-01T03:00Z is Monday 2024-09-30 23:00 in New York (UTC-4): end of Q3.
    CalendarCase(
        label: "Monday 2024-09-30 23:00 New York",
        timeZone: "America/New_York",
        instant: 1_727_751_600,
        dayOfMonth: 30,
        dayOfWeek: 1,
        dayOfYear: 274,
        weekOfYear: 40,
        isWeekend: false,
        monthOfYear: 9,
        quarterOfYear: 3,
        hourOfDay: 24
    ),
]

private func zone(_ identifier: String) throws -> TimeZone {
    try #require(TimeZone(identifier: identifier))
}

private func event(_ processor: CalendarProcessor, at instant: TimeInterval) async throws -> Event {
    let pipeline = ProcessorPipeline(processors: [processor], finalizer: EventFinalizer(appID: "APP"))
    return try await pipeline.process(EventInput("x", timestamp: Date(timeIntervalSince1970: instant)))
}

struct CalendarProcessorTests {
    @Test func keysAreTheSpecNames() {
        #expect(
            CalendarProcessor.Keys.all == [
                "TelemetryDeck.Calendar.dayOfMonth",
                "TelemetryDeck.Calendar.dayOfWeek",
                "TelemetryDeck.Calendar.dayOfYear",
                "TelemetryDeck.Calendar.weekOfYear",
                "TelemetryDeck.Calendar.isWeekend",
                "TelemetryDeck.Calendar.monthOfYear",
                "TelemetryDeck.Calendar.quarterOfYear",
                "TelemetryDeck.Calendar.hourOfDay",
            ]
        )
    }

    @Test(arguments: cases)
    func valuesOfTheEventTimestamp(_ expected: CalendarCase) async throws {
        let processor = CalendarProcessor(timeZone: try zone(expected.timeZone))
        let result = try await event(processor, at: expected.instant)
        #expect(result.payload == expected.expectedPayload)
    }

    @Test func oneProcessorServesManyDatesInAnyOrder() async throws {
        // The hour cache must never answer for another hour, whatever the order of events.
        let byZone = Dictionary(grouping: cases, by: \.timeZone)
        for (identifier, zoneCases) in byZone {
            let processor = CalendarProcessor(timeZone: try zone(identifier))
            for expected in zoneCases + zoneCases.reversed() + zoneCases {
                #expect(try await event(processor, at: expected.instant).payload == expected.expectedPayload)
            }
        }
    }

    @Test func hourBoundariesFollowTheLocalHour() throws {
        // Kolkata's hours start at :30 UTC: 08:29:59Z is 13:59:59 local (hour 14), 08:30:00Z is
        // 14:00 (hour 15).
        let processor = CalendarProcessor(timeZone: try zone("Asia/Kolkata"))
        let start = Date(timeIntervalSince1970: 1_718_440_200)  // 2024-06-15T08:30:00Z
        let hour = CalendarProcessor.Keys.hourOfDay
        #expect(processor.parameters(at: start.addingTimeInterval(-1))[hour] == .int(14))
        #expect(processor.parameters(at: start)[hour] == .int(15))
        #expect(processor.parameters(at: start.addingTimeInterval(3_599))[hour] == .int(15))
        #expect(processor.parameters(at: start.addingTimeInterval(3_600))[hour] == .int(16))
        #expect(processor.parameters(at: start.addingTimeInterval(-1))[hour] == .int(14))
    }

    @Test func midnightChangesDayAndWeekday() throws {
        let processor = CalendarProcessor(timeZone: try zone("UTC"))
        // 2024-06-15T23:59:59Z (Saturday, week 24) and one second later (Sunday, week 25).
        let saturday = processor.parameters(at: Date(timeIntervalSince1970: 1_718_495_999))
        let firstOfWeek = processor.parameters(at: Date(timeIntervalSince1970: 1_718_496_000))
        #expect(saturday[CalendarProcessor.Keys.weekOfYear] == .int(24))
        #expect(firstOfWeek[CalendarProcessor.Keys.weekOfYear] == .int(25))
        #expect(firstOfWeek[CalendarProcessor.Keys.hourOfDay] == .int(1))
        // 2024-06-16T23:59:59Z (Sunday) and one second later (Monday, the same week).
        let sunday = processor.parameters(at: Date(timeIntervalSince1970: 1_718_582_399))
        let monday = processor.parameters(at: Date(timeIntervalSince1970: 1_718_582_400))
        #expect(sunday[CalendarProcessor.Keys.dayOfWeek] == .int(7))
        #expect(sunday[CalendarProcessor.Keys.isWeekend] == .bool(true))
        #expect(sunday[CalendarProcessor.Keys.weekOfYear] == .int(25))
        #expect(sunday[CalendarProcessor.Keys.hourOfDay] == .int(24))
        #expect(monday[CalendarProcessor.Keys.dayOfWeek] == .int(1))
        #expect(monday[CalendarProcessor.Keys.isWeekend] == .bool(false))
        #expect(monday[CalendarProcessor.Keys.weekOfYear] == .int(25))
        #expect(monday[CalendarProcessor.Keys.hourOfDay] == .int(1))
    }

    @Test func daylightSavingHoursAreLocal() throws {
        // Berlin, 2024-03-31: 00:30Z is 01:30 CET (hour 2), 01:30Z is 03:30 CEST (hour 4; 02:xx
        // does not exist).
        let processor = CalendarProcessor(timeZone: try zone("Europe/Berlin"))
        let hour = CalendarProcessor.Keys.hourOfDay
        #expect(processor.parameters(at: Date(timeIntervalSince1970: 1_711_845_000))[hour] == .int(2))
        #expect(processor.parameters(at: Date(timeIntervalSince1970: 1_711_848_600))[hour] == .int(4))
        // 2024-10-27: 00:30Z and 01:30Z are both 02:30 local (CEST, then CET); 02:30Z is 03:30.
        #expect(processor.parameters(at: Date(timeIntervalSince1970: 1_729_989_000))[hour] == .int(3))
        #expect(processor.parameters(at: Date(timeIntervalSince1970: 1_729_992_600))[hour] == .int(3))
        #expect(processor.parameters(at: Date(timeIntervalSince1970: 1_729_996_200))[hour] == .int(4))
    }

    @Test func everyQuarterFromItsMonths() throws {
        let processor = CalendarProcessor(timeZone: try zone("UTC"))
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try zone("UTC")
        for month in 1...12 {
            let date = try #require(calendar.date(from: DateComponents(year: 2024, month: month, day: 10, hour: 8)))
            let parameters = processor.parameters(at: date)
            #expect(parameters[CalendarProcessor.Keys.monthOfYear] == .int(Int64(month)))
            #expect(parameters[CalendarProcessor.Keys.quarterOfYear] == .int(Int64((month + 2) / 3)))
        }
    }

    @Test func eventParametersWin() async throws {
        let pipeline = ProcessorPipeline(
            processors: [CalendarProcessor(timeZone: try zone("UTC"))],
            finalizer: EventFinalizer(appID: "APP")
        )
        let result = try await pipeline.process(
            EventInput(
                "x",
                parameters: [CalendarProcessor.Keys.hourOfDay: 99],
                timestamp: Date(timeIntervalSince1970: 0)
            )
        )
        #expect(result.payload[CalendarProcessor.Keys.hourOfDay] == .int(99))
        #expect(result.payload[CalendarProcessor.Keys.dayOfMonth] == .int(1))
    }

    /// The values are TelemetryDeck v3's, which reads Foundation's Gregorian calendar with its
    /// defaults (Sunday-first weeks, one day enough for week 1) and sends the hour plus one:
    /// checked against that calendar for dates spread over four centuries, every fifth hour of
    /// 2024 through 2026, year ends and both sides of daylight-saving changes, in zones with
    /// whole, half and quarter hour offsets (Lord Howe shifts by half an hour). The quarter is
    /// the month's (v3 on Linux inherits a Foundation error there on 31 March; on Apple
    /// platforms it agrees).
    @Test(arguments: [
        "UTC", "Europe/Berlin", "America/New_York", "Asia/Kolkata", "Asia/Kathmandu", "Australia/Lord_Howe",
        "Pacific/Chatham", "America/St_Johns",
    ])
    func agreesWithFoundationsCalendar(identifier: String) throws {
        let timeZone = try zone(identifier)
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        #expect(calendar.firstWeekday == 1)
        #expect(calendar.minimumDaysInFirstWeek == 1)
        let processor = CalendarProcessor(timeZone: timeZone)
        var state: UInt64 = 27
        var instants: [TimeInterval] = []
        for _ in 0..<1_500 {
            // 1900 through 2299, any second.
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            instants.append(-2_208_988_800 + Double((state >> 11) % 12_622_780_800))
        }
        // 2024-01-01T00:00Z through 2026-12-31, every fifth hour (5 and 24 share no factor, so
        // every hour of the day is met on every day of the week).
        instants += stride(from: 1_704_067_200.0, to: 1_798_761_600.0, by: 5 * 3_600)
        for year in 2020...2031 {
            // Around each year's end and its daylight-saving changes, every 17 minutes.
            let newYear = try #require(calendar.date(from: DateComponents(year: year, month: 1, day: 1)))
            for step in -200...200 { instants.append(newYear.timeIntervalSince1970 + Double(step * 1_020)) }
            var cursor = newYear
            while let transition = timeZone.nextDaylightSavingTimeTransition(after: cursor),
                transition.timeIntervalSince(newYear) < 366 * 86_400
            {
                for step in -8...8 { instants.append(transition.timeIntervalSince1970 + Double(step * 450)) }
                cursor = transition
            }
        }
        for instant in instants {
            let date = Date(timeIntervalSince1970: instant)
            let parameters = processor.parameters(at: date)
            let components = calendar.dateComponents([.day, .weekday, .weekOfYear, .month, .hour], from: date)
            let dayOfWeek = (try #require(components.weekday) + 5) % 7 + 1
            let dayOfYear = try #require(calendar.ordinality(of: .day, in: .year, for: date))
            let expected: [String: PayloadValue] = [
                CalendarProcessor.Keys.dayOfMonth: .int(Int64(try #require(components.day))),
                CalendarProcessor.Keys.dayOfWeek: .int(Int64(dayOfWeek)),
                CalendarProcessor.Keys.isWeekend: .bool(dayOfWeek >= 6),
                CalendarProcessor.Keys.dayOfYear: .int(Int64(dayOfYear)),
                CalendarProcessor.Keys.weekOfYear: .int(Int64(try #require(components.weekOfYear))),
                CalendarProcessor.Keys.monthOfYear: .int(Int64(try #require(components.month))),
                CalendarProcessor.Keys.quarterOfYear: .int(Int64((try #require(components.month) - 1) / 3 + 1)),
                CalendarProcessor.Keys.hourOfDay: .int(Int64(try #require(components.hour)) + 1),
            ]
            #expect(parameters == expected, "\(identifier) at \(instant)")
        }
    }

    /// A timestamp no calendar reads (NaN, far past the year 9999) adds nothing, and is no crash.
    @Test func anUnreadableTimestampAddsNothing() throws {
        let processor = CalendarProcessor(timeZone: try zone("UTC"))
        #expect(processor.parameters(at: Date(timeIntervalSince1970: .nan)).isEmpty)
        #expect(processor.parameters(at: Date(timeIntervalSince1970: 1e15)).isEmpty)
        #expect(processor.parameters(at: Date(timeIntervalSince1970: 0))[CalendarProcessor.Keys.dayOfMonth] == .int(1))
    }
}
