#if Tools
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TelemetryKit

extension Collector {
    /// `GET /events`: counts and the received events (the latest `limit`, or all) as JSON.
    func eventsDocument(limit: Int?) -> [UInt8] {
        struct Document: Encodable {
            var received: Int
            var duplicates: Int
            var requests: Int
            var events: [Event]
        }
        let document = state.withLock { state -> Document in
            let events = limit.map { Array(state.events.suffix(max(0, $0))) } ?? state.events
            return Document(
                received: state.events.count,
                duplicates: state.duplicates,
                requests: state.requests.count,
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

    /// `GET /`: the latest events, newest first, refreshing every 2 seconds.
    func htmlPage() -> String {
        let (events, total, duplicates, requests) = state.withLock { state in
            (
                Array(state.events.suffix(configuration.pageEventLimit).reversed()),
                state.events.count, state.duplicates, state.requests.count
            )
        }
        var rows = ""
        for event in events {
            let parameters = event.payload.keys.sorted().compactMap { key -> String? in
                guard let value = event.payload[key] else { return nil }
                return "<span class=\"p\">\(Self.escapeHTML(key))=\(Self.escapeHTML(value.stringValue))</span>"
            }.joined(separator: " ")
            rows += """
                <tr><td>\(ISO8601.string(from: event.receivedAt))</td><td><b>\(Self.escapeHTML(event.type))</b>\
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
            .p{display:inline-block;margin-right:8px;color:#555}</style></head>
            <body><h1>TelemetryKit collector</h1>
            <p>\(total) events received, \(duplicates) duplicates dropped, \(requests) ingest requests. \
            Latest \(events.count) below; <a href="/events">all as JSON</a>.</p>
            <table><tr><th>received at</th><th>type</th><th>app</th><th>user</th><th>float</th><th>parameters</th></tr>
            \(rows)</table></body></html>

            """
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
