import TelemetryKit
import TelemetryKitSupport

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// Parses `Retry-After` header values: delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
package enum RetryAfter {
    /// The delay in seconds that `value` asks for, measured from `now`; nil when `value` is
    /// neither form. A date in the past means "now" (0).
    package static func seconds(from value: String, now: Date) -> TimeInterval? {
        let trimmed = value.trimmingWhitespace
        guard !trimmed.isEmpty else { return nil }
        if trimmed.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) {
            return Double(trimmed)
        }
        guard let date = httpDate(trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }

    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// Parses the three HTTP-date forms: IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`),
    /// RFC 850 (`Sunday, 06-Nov-94 08:49:37 GMT`) and asctime (`Sun Nov  6 08:49:37 1994`).
    static func httpDate(_ string: String) -> Date? {
        let parts = string.split(separator: " ", omittingEmptySubsequences: true)
        let day: Substring
        let month: Substring
        var year: Substring
        let time: Substring
        switch parts.count {
        case 6 where parts[5] == "GMT":
            (day, month, year, time) = (parts[1], parts[2], parts[3], parts[4])
        case 4 where parts[3] == "GMT":
            let date = parts[1].split(separator: "-", omittingEmptySubsequences: false)
            guard date.count == 3 else { return nil }
            (day, month, year, time) = (date[0], date[1], date[2], parts[2])
        case 5:
            (day, month, year, time) = (parts[2], parts[1], parts[4], parts[3])
        default:
            return nil
        }
        guard let monthIndex = months.firstIndex(of: month.lowercased()),
            let dayNumber = Int(day), (1...31).contains(dayNumber),
            year.allSatisfy({ $0.isASCII && $0.isNumber })
        else { return nil }
        if year.count == 2, let short = Int(year) {
            // RFC 9110: a two-digit year more than 50 years ahead is in the past century.
            year = Substring(String(short < 70 ? 2000 + short : 1900 + short))
        }
        guard year.count == 4, time.count == 8 else { return nil }
        let iso = "\(year)-\(twoDigits(monthIndex + 1))-\(twoDigits(dayNumber))T\(time)Z"
        return ISO8601.date(from: iso)
    }

    private static func twoDigits(_ value: Int) -> String {
        value < 10 ? "0\(value)" : String(value)
    }
}
