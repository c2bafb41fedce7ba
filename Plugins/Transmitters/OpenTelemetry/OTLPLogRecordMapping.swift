#if OpenTelemetry
import TelemetryKit

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// How an ``Event`` becomes an OTLP `LogRecord`: one place that both encodings read, so the
/// protobuf and the JSON body always carry the same record.
///
/// | LogRecord | from the event |
/// |---|---|
/// | `timeUnixNano`, `observedTimeUnixNano` | `receivedAt` (when the app sent it; the SDK observed it then too, as the log data model says for records an SDK creates) |
/// | `severityNumber`, `severityText` | 9, `INFO` |
/// | `eventName` | `type` |
/// | `traceId`, `spanId`, `flags` | the payload's `trace_id`, `span_id`, `trace_flags` (see ``TraceContextProcessor``) when they hold valid, non-zero ids |
/// | attributes | `log.record.uid` (the event id), `telemetrykit.app_id`, `user.hash` (`clientUser`), `session.id`, `telemetrykit.float_value`, `telemetrykit.test_mode`, then every payload entry with its type (string, int, double, bool) |
///
/// A payload key equal to one of the event's own attribute keys is left out: the event's
/// field is the record's.
enum OTLPLogRecordMapping {
    /// `SEVERITY_NUMBER_INFO`: events are facts the app reports, not problems.
    static let severityNumber: UInt32 = 9
    static let severityText = "INFO"

    /// The attribute keys of an event's own fields (semantic conventions where one exists).
    enum Key {
        static let eventID = "log.record.uid"
        static let appID = "telemetrykit.app_id"
        static let userHash = "user.hash"
        static let sessionID = "session.id"
        static let floatValue = "telemetrykit.float_value"
        static let testMode = "telemetrykit.test_mode"

        static let all: Set<String> = [eventID, appID, userHash, sessionID, floatValue, testMode]
    }

    /// The trace an event was sent in, from its payload.
    struct Trace {
        var traceID: [UInt8]
        var spanID: [UInt8]
        var flags: UInt32
    }

    /// The event's trace, when its payload holds a valid one (else the keys stay attributes).
    static func trace(of event: Event) -> Trace? {
        guard case .string(let traceHex)? = event.payloadValue(forKey: TraceContextProcessor.traceIDKey),
            case .string(let spanHex)? = event.payloadValue(forKey: TraceContextProcessor.spanIDKey),
            let traceID = W3CTraceParent.bytes(fromHex: traceHex, count: 16),
            let spanID = W3CTraceParent.bytes(fromHex: spanHex, count: 8),
            traceID.contains(where: { $0 != 0 }), spanID.contains(where: { $0 != 0 })
        else { return nil }
        var flags: UInt32 = 0
        if case .int(let value)? = event.payloadValue(forKey: TraceContextProcessor.traceFlagsKey),
            (0...255).contains(value)
        {
            flags = UInt32(value)
        }
        return Trace(traceID: traceID, spanID: spanID, flags: flags)
    }

    /// Calls `body` with each attribute of the record, in order: the event's fields, then its
    /// payload (without the trace keys when `trace` took them).
    static func forEachAttribute(of event: Event, trace: Trace?, _ body: (String, PayloadValue) -> Void) {
        body(Key.eventID, .string(event.id.uuidString.lowercased()))
        body(Key.appID, .string(event.appID))
        body(Key.userHash, .string(event.clientUser))
        if let sessionID = event.sessionID { body(Key.sessionID, .string(sessionID)) }
        if let floatValue = event.floatValue { body(Key.floatValue, .double(floatValue)) }
        body(Key.testMode, .bool(event.isTestMode))
        event.forEachPayloadEntry { key, value in
            if mayBeTaken(key) {
                if Key.all.contains(key) { return }
                if trace != nil && TraceContextProcessor.keys.contains(key) { return }
            }
            body(key, value)
        }
    }

    /// Whether `key` may be one of the keys above or a trace key: they all begin with `l`,
    /// `s`, `t` or `u`, so most payload keys (the SDK's `TelemetryDeck.*`, say) are let through
    /// without hashing them.
    @inline(__always)
    private static func mayBeTaken(_ key: String) -> Bool {
        switch key.utf8.first {
        case UInt8(ascii: "l"), UInt8(ascii: "s"), UInt8(ascii: "t"), UInt8(ascii: "u"): return true
        default: return false
        }
    }

    /// Nanoseconds since 1970 (0 for earlier dates); `receivedAt` carries milliseconds, so
    /// the value is computed from whole milliseconds and has no floating-point residue.
    static func unixNanoseconds(_ date: Date) -> UInt64 {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded()
        guard milliseconds > 0, milliseconds < 18_446_744_073_709 else { return 0 }
        return UInt64(milliseconds) * 1_000_000
    }
}
#endif
