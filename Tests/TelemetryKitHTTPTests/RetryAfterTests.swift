import Testing

@testable import TelemetryKitHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct RetryAfterTests {
    /// 2024-01-01T00:00:00Z, a Monday.
    private let now = Date(timeIntervalSince1970: 1_704_067_200)

    @Test(arguments: [("0", 0.0), ("1", 1), (" 120 ", 120), ("86400", 86_400)])
    func parsesDelaySeconds(value: String, expected: Double) {
        #expect(RetryAfter.seconds(from: value, now: now) == expected)
    }

    @Test(arguments: [
        ("Mon, 01 Jan 2024 00:02:00 GMT", 120.0),
        ("Monday, 01-Jan-24 00:00:30 GMT", 30),
        ("Mon Jan  1 01:00:00 2024", 3600),
        ("Sun, 31 Dec 2023 23:00:00 GMT", 0),
    ])
    func parsesHTTPDates(value: String, expected: Double) {
        #expect(RetryAfter.seconds(from: value, now: now) == expected)
    }

    @Test(arguments: ["", "soon", "-5", "1.5", "Mon, 32 Jan 2024 00:00:00 GMT", "Mon, 01 Foo 2024 00:00:00 GMT"])
    func ignoresUnparseableValues(value: String) {
        #expect(RetryAfter.seconds(from: value, now: now) == nil)
    }
}
