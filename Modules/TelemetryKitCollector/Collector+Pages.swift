#if Tools
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TelemetryKit
import TelemetryKitSupport
import TelemetryKitTrackingPlan

extension Collector {
    /// `GET /events`: counts and the received events (the latest `limit`, or all) as JSON.
    ///
    /// With a tracking plan, the document also counts the violating events
    /// (`planViolations`), and each event carries `planViolations`: what is wrong with it,
    /// one sentence per violation (empty when it conforms).
    func eventsDocument(limit: Int?) -> [UInt8] {
        struct Document: Encodable {
            var received: Int
            var duplicates: Int
            var requests: Int
            var planViolations: Int?
            var events: [RecordedEvent]
        }
        let checksPlan = configuration.trackingPlan != nil
        let document = state.withLock { state -> Document in
            let events = limit.map { Array(state.events.suffix(max(0, $0))) } ?? state.events
            return Document(
                received: state.events.count,
                duplicates: state.duplicates,
                requests: state.requests.count,
                planViolations: checksPlan ? state.planViolations.count : nil,
                events: events.map { event in
                    RecordedEvent(
                        event: event,
                        planViolations: checksPlan ? (state.planViolations[event.id] ?? []).map(\.description) : nil
                    )
                }
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

    /// `GET /`: the latest events, newest first, refreshing every 2 seconds. With a tracking
    /// plan, a violating event's row is marked and says what is wrong.
    func htmlPage() -> String {
        let (events, total, duplicates, requests, violations) = state.withLock { state in
            (
                Array(state.events.suffix(configuration.pageEventLimit).reversed()),
                state.events.count, state.duplicates, state.requests.count, state.planViolations
            )
        }
        let checksPlan = configuration.trackingPlan != nil
        var rows = ""
        for event in events {
            var parameters = event.payload.keys.sorted().compactMap { key -> String? in
                guard let value = event.payload[key] else { return nil }
                return "<span class=\"p\">\(Self.escapeHTML(key))=\(Self.escapeHTML(value.stringValue))</span>"
            }.joined(separator: " ")
            let found = violations[event.id] ?? []
            if !found.isEmpty {
                parameters += found.map { "<div class=\"v\">✗ \(Self.escapeHTML($0.description))</div>" }.joined()
            }
            rows += """
                <tr\(found.isEmpty ? "" : " class=\"violation\"")><td>\(ISO8601.string(from: event.receivedAt))</td><td><b>\(Self.escapeHTML(event.type))</b>\
                \(event.isTestData ? " <i>test</i>" : "")</td><td>\(Self.escapeHTML(event.appID))</td>\
                <td><code>\(Self.escapeHTML(String(event.clientUser.prefix(12))))</code></td>\
                <td>\(event.floatValue.map { String($0) } ?? "")</td><td>\(parameters)</td></tr>

                """
        }
        return """
            <!doctype html>
            <html><head><meta charset="utf-8"><meta http-equiv="refresh" content="2">
            <title>TelemetryKit collector</title>
            <style>body{font:14px system-ui,sans-serif;margin:2em}table{border-collapse:collapse;width:100%}\
            td,th{border-bottom:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}\
            .p{display:inline-block;margin-right:8px;color:#555}tr.violation{background:#fde8e8}.v{color:#b00020}\
            </style></head>
            <body><h1>TelemetryKit collector</h1>
            <p>\(total) events received, \(duplicates) duplicates dropped, \(requests) ingest requests. \
            \(checksPlan ? "\(violations.count) break the tracking plan. " : "")\
            Latest \(events.count) below; <a href="/events">all as JSON</a>.</p>
            <table><tr><th>received at</th><th>type</th><th>app</th><th>user</th><th>float</th><th>parameters</th></tr>
            \(rows)</table></body></html>

            """
    }

    /// An event as `GET /events` lists it: its members, plus `planViolations` when the
    /// collector checks a tracking plan.
    struct RecordedEvent: Encodable {
        var event: Event
        var planViolations: [String]?

        enum CodingKeys: String, CodingKey {
            case planViolations
        }

        func encode(to encoder: any Encoder) throws {
            try event.encode(to: encoder)
            if let planViolations {
                var container = encoder.container(keyedBy: CodingKeys.self)
                try container.encode(planViolations, forKey: .planViolations)
            }
        }
    }

    static func escapeHTML(_ string: String) -> String {
        var result = ""
        result.reserveCapacity(string.utf8.count)
        for character in string {
            switch character {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.append(character)
            }
        }
        return result
    }
}
#endif
