#if Tools
/// Running counts of everything a collector received, kept whatever it forgets.
///
/// A collector left open for a day keeps only its latest events (see
/// ``Collector/Retention``), but its page and the `collect` summary still count every event
/// by type, and chart the last ``window`` minutes: these counts grow with the number of event
/// types and minutes, never with the number of events.
struct EventTally {
    /// Events of one minute, by type.
    struct Minute: Equatable {
        /// Whole minutes since 1970.
        var start: Int
        var counts: [String: Int]
    }

    /// How many minutes the per-minute counts reach back: the page's chart.
    static let window = 30

    /// Distinct events received, by type.
    private(set) var byType: [String: Int] = [:]
    /// The last ``window`` minutes that saw events, oldest first.
    private(set) var minutes: [Minute] = []

    /// Counts one event of `type`, received at `seconds` since 1970.
    mutating func count(_ type: String, atSecondsSince1970 seconds: Double) {
        byType[type, default: 0] += 1
        let minute = Int((seconds / 60).rounded(.down))
        if minutes.last?.start == minute {
            minutes[minutes.count - 1].counts[type, default: 0] += 1
        } else {
            minutes.append(Minute(start: minute, counts: [type: 1]))
            minutes.removeAll { $0.start <= minute - Self.window }
        }
    }

    /// The per-minute counts that are within ``window`` minutes of `seconds` since 1970.
    func recentMinutes(atSecondsSince1970 seconds: Double) -> [Minute] {
        let now = Int((seconds / 60).rounded(.down))
        return minutes.filter { $0.start > now - Self.window }
    }
}
#endif
