import Foundation
import TelemetryKit
import TelemetryKitCalendar
import TelemetryKitTesting
import Testing

struct CalendarClientTests {
    @Test func valuesComeFromEachEventsTimestampNotFromTheClock() async throws {
        let processor = CalendarProcessor(timeZone: try #require(TimeZone(identifier: "UTC")))
        let harness = await TestHarness.make(processors: [processor])
        // The harness clock says 2024-01-01; the events say otherwise.
        await harness.client.send(EventInput("sat", timestamp: Date(timeIntervalSince1970: 1_718_460_000)))
        await harness.client.send(EventInput("mon", timestamp: Date(timeIntervalSince1970: 1_718_616_600)))
        await harness.client.flush()

        let events = harness.spy.deliveredEvents
        #expect(events.map(\.type) == ["sat", "mon"])
        #expect(events.map { $0.payload[CalendarProcessor.Keys.dayOfWeek] } == [.int(6), .int(1)])
        #expect(events.map { $0.payload[CalendarProcessor.Keys.hourOfDay] } == [.int(15), .int(10)])
        #expect(events.map { $0.payload[CalendarProcessor.Keys.isWeekend] } == [.bool(true), .bool(false)])
        await harness.client.shutdown()
    }
}
