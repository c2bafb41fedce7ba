#if OpenTelemetry
import TelemetryKit
import TelemetryKitSupport

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

    /// Calls `body` with the attributes that come from the event's own fields, in order.
    static func forEachFieldAttribute(of event: Event, _ body: (String, PayloadValue) -> Void) {
        body(Key.eventID, .string(event.id.uuidString.lowercased()))
        body(Key.appID, .string(event.appID))
        body(Key.userHash, .string(event.clientUser))
        if let sessionID = event.sessionID { body(Key.sessionID, .string(sessionID)) }
        if let floatValue = event.floatValue { body(Key.floatValue, .double(floatValue)) }
        body(Key.testMode, .bool(event.isTestMode == "true"))
    }

    /// Whether the payload entry `key` becomes an attribute: not when the event's own field
    /// has that key, nor a trace key whose ids went into the record's trace fields.
    @inline(__always)
    static func isPayloadAttribute(_ key: String, traceTaken: Bool) -> Bool {
        guard mayBeTaken(key) else { return true }
        if Key.all.contains(key) { return false }
        return !(traceTaken && TraceContextProcessor.keys.contains(key))
    }

    /// The encoded attributes of one shared payload layer (the processors' metadata, the same
    /// dictionary for every event of a run): written once per batch instead of per event.
    struct SharedLayerFragment {
        var identity: UInt
        var traceTaken: Bool
        /// Kept so the dictionary's storage, whose address is the identity, is not reused.
        var entries: [String: PayloadValue]
        var bytes: [UInt8]
    }

    /// Appends the payload's attributes with `writer`: the shared layer's from `cache` when
    /// the event shares the cached layer (encoding and caching it otherwise), then the rest.
    static func appendPayloadAttributes<Writer: OTLPAttributeWriter>(
        of event: Event,
        traceTaken: Bool,
        cache: inout SharedLayerFragment?,
        to writer: inout Writer
    ) {
        guard let (identity, shared) = event.unshadowedSharedLayer() else {
            event.forEachPayloadEntry { key, value in
                if isPayloadAttribute(key, traceTaken: traceTaken) { writer.appendAttribute(key, value) }
            }
            return
        }
        if let cached = cache, cached.identity == identity, cached.traceTaken == traceTaken {
            writer.bytes.append(contentsOf: cached.bytes)
        } else {
            var fragment = Writer()
            for (key, value) in shared where isPayloadAttribute(key, traceTaken: traceTaken) {
                fragment.appendAttribute(key, value)
            }
            writer.bytes.append(contentsOf: fragment.bytes)
            cache = SharedLayerFragment(
                identity: identity,
                traceTaken: traceTaken,
                entries: shared,
                bytes: fragment.bytes
            )
        }
        for (key, value) in event.ownPayload where isPayloadAttribute(key, traceTaken: traceTaken) {
            writer.appendAttribute(key, value)
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
/// Appends one attribute in an encoding's form; the writer's bytes are whole attributes, so
/// those of one writer can be appended to another's (the cached shared layer).
protocol OTLPAttributeWriter {
    init()
    var bytes: [UInt8] { get set }
    mutating func appendAttribute(_ key: String, _ value: PayloadValue)
}
#endif
