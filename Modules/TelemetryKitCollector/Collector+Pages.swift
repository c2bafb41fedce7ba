#if Tools
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import TelemetryKit
import TelemetryKitSupport
import TelemetryKitTrackingPlan

/// Which events one `GET /events` returns: `?since=` and `?limit=`.
///
/// Events are numbered 1, 2, … in order of reception. Without `since` the page is the latest
/// `limit` events, what a first look wants; with it, the first `limit` events after that
/// number, oldest first, so a reader that passes back each answer's `next` sees every kept
/// event once. Either way an answer is at most `limit` events, never the whole history.
struct EventPage: Equatable {
    /// The number of the last event the reader has; nil for the latest events.
    var since: Int?
    var limit: Int

    /// The events in an answer that names no `limit`.
    static let defaultLimit = 1_000

    /// The page the query values ask for; nil when one is not a whole number of at least 0.
    init?(since: String?, limit: String?) {
        if let since {
            guard let number = Int(since), number >= 0 else { return nil }
            self.since = number
        }
        if let limit {
            guard let number = Int(limit), number >= 0 else { return nil }
            self.limit = number
        } else {
            self.limit = Self.defaultLimit
        }
    }
}

extension Collector {
    /// How many of the latest rejections `GET /events` lists: what fits beside the events on
    /// the page (the answer is fetched every second).
    static let listedRejections = 20

    /// `GET /events`: the counts of everything received, the events of `page` as JSON, and
    /// what the page shows beside them (counts per type, per minute and type for the last
    /// 30 minutes, the latest rejections).
    ///
    /// With a tracking plan, the document also counts the violating events
    /// (`planViolations`), and each event carries `planViolations`: what is wrong with it,
    /// one sentence per violation (empty when it conforms).
    func eventsDocument(_ page: EventPage) -> [UInt8] {
        struct Minute: Encodable {
            /// Whole minutes since 1970.
            var minute: Int
            var counts: [String: Int]
        }
        struct Document: Encodable {
            var received: Int
            var duplicates: Int
            var requests: Int
            var rejected: Int
            var planViolations: Int?
            /// The number of the oldest event kept; older ones were dropped (see Retention).
            var first: Int
            /// What to pass as `since` for the events after these.
            var next: Int
            var types: [String: Int]
            /// The current minute (whole minutes since 1970), the chart's right edge.
            var now: Int
            var minutes: [Minute]
            /// The latest rejections, newest first.
            var rejections: [Rejection]
            var events: [RecordedEvent]
        }
        let checksPlan = configuration.trackingPlan != nil
        let now = Date().timeIntervalSince1970
        let document = state.withLock { state -> Document in
            let first = state.received - state.events.count + 1
            let from: Int
            if let since = page.since {
                from = max(first, since + 1)
            } else {
                from = max(first, state.received - page.limit + 1)
            }
            let to = min(state.received, from + page.limit - 1)
            var events: [RecordedEvent] = []
            if from <= to {
                events.reserveCapacity(to - from + 1)
                for number in from...to {
                    let event = state.events[state.events.index(state.events.startIndex, offsetBy: number - first)]
                    events.append(
                        RecordedEvent(
                            event: event,
                            number: number,
                            planViolations: checksPlan
                                ? (state.planViolations[event.id] ?? []).map(\.description) : nil
                        )
                    )
                }
            }
            return Document(
                received: state.received,
                duplicates: state.duplicates,
                requests: state.requestCount,
                rejected: state.rejectedCount,
                planViolations: checksPlan ? state.violatingEvents : nil,
                first: first,
                next: from <= to ? to : min(page.since ?? state.received, state.received),
                types: state.tally.byType,
                now: Int((now / 60).rounded(.down)),
                minutes: state.tally.recentMinutes(atSecondsSince1970: now).map {
                    Minute(minute: $0.start, counts: $0.counts)
                },
                rejections: state.rejections.suffix(Self.listedRejections).reversed(),
                events: events
            )
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return Array(try encoder.encode(document))
        } catch {
            return Array(#"{"error":"The events could not be encoded."}"#.utf8)
        }
    }

    /// An event as `GET /events` lists it: its members, its `number` (see ``EventPage``), plus
    /// `planViolations` when the collector checks a tracking plan.
    struct RecordedEvent: Encodable {
        var event: Event
        var number: Int
        var planViolations: [String]?

        enum CodingKeys: String, CodingKey {
            case number, planViolations
        }

        func encode(to encoder: any Encoder) throws {
            try event.encode(to: encoder)
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(number, forKey: .number)
            try container.encodeIfPresent(planViolations, forKey: .planViolations)
        }
    }
}
#endif
