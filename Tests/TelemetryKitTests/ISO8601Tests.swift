import Foundation
import TelemetryKit
import Testing

struct ISO8601Tests {
    /// Times before 1970 fall on their own day (the division rounds toward the past).
    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00.000Z"),
        (-0.001, "1969-12-31T23:59:59.999Z"),
        (-86_400.5, "1969-12-30T23:59:59.500Z"),
        (1_700_000_000.123, "2023-11-14T22:13:20.123Z"),
    ])
    func writesUTCWithMillisecondsAndReadsItBack(seconds: Double, text: String) throws {
        #expect(ISO8601.string(from: Date(timeIntervalSince1970: seconds)) == text)
        let read = try #require(ISO8601.date(from: text))
        #expect((read.timeIntervalSince1970 * 1000).rounded() == (seconds * 1000).rounded())
    }

    @Test func dividesTowardThePast() {
        #expect(ISO8601.floorDivision(90_000, by: 86_400) == (1, 3_600))
        #expect(ISO8601.floorDivision(-1, by: 86_400) == (-1, 86_399))
        #expect(ISO8601.floorDivision(-86_400, by: 86_400) == (-1, 0))
        #expect(ISO8601.floorDivision(-1, by: 1000) == (-1, 999))
    }
}
