#if OpenTelemetry
public import TelemetryKit
import TelemetryKitSupport

/// Writes a batch of events as one OTLP `ExportLogsServiceRequest`: protobuf (the OTLP
/// default) or OTLP JSON, byte by byte.
///
/// The request holds one `ResourceLogs` (the service's resource, encoded once in `init`)
/// with one `ScopeLogs` (scope `TelemetryKit`, the SDK's version) holding one `LogRecord` per
/// event, in batch order; see `OTLPLogRecordMapping` for the fields. Field numbers are
/// those of opentelemetry-proto's `collector/logs/v1/logs_service.proto`,
/// `logs/v1/logs.proto`, `common/v1/common.proto` and `resource/v1/resource.proto`.
///
/// OTLP JSON is protobuf's JSON mapping with OTLP's exceptions: lowerCamelCase names,
/// `traceId`/`spanId` as hex (not base64), 64-bit integers as decimal strings, enums as
/// numbers, and non-finite doubles as `"NaN"`, `"Infinity"`, `"-Infinity"`.
///
/// ```swift
/// let encoder = OTLPLogsEncoder(resourceAttributes: [.init("service.name", "checkout")], encoding: .protobuf)
/// let body: [UInt8] = encoder.encode(batch)
/// ```
public struct OTLPLogsEncoder: Sendable {
    /// One resource attribute: a string key and a string value.
    public struct ResourceAttribute: Sendable, Hashable {
        public var key: String
        public var value: String

        public init(_ key: String, _ value: String) {
            self.key = key
            self.value = value
        }
    }

    /// The wire form of a request body.
    public enum Encoding: Sendable, Hashable, CaseIterable {
        /// Binary protobuf, `Content-Type: application/x-protobuf` (the OTLP default).
        case protobuf
        /// OTLP JSON, `Content-Type: application/json`.
        case json

        /// The `Content-Type` of a body in this encoding.
        public var contentType: String {
            switch self {
            case .protobuf: return "application/x-protobuf"
            case .json: return "application/json"
            }
        }
    }

    /// The resource every record of a request belongs to.
    public let resourceAttributes: [ResourceAttribute]
    public let encoding: Encoding
    /// `Resource` message bytes (protobuf) or JSON object, written once.
    private let encodedResource: [UInt8]
    private let encodedScope: [UInt8]

    /// Creates an encoder for a resource.
    public init(resourceAttributes: [ResourceAttribute], encoding: Encoding = .protobuf) {
        self.resourceAttributes = resourceAttributes
        self.encoding = encoding
        switch encoding {
        case .protobuf:
            var resource = ProtobufWriter()
            for attribute in resourceAttributes {
                Self.appendProtobufAttribute(attribute.key, .string(attribute.value), field: 1, to: &resource)
            }
            encodedResource = resource.bytes
            var scope = ProtobufWriter()
            scope.appendString(1, SDKInfo.name)
            scope.appendString(2, SDKInfo.version)
            encodedScope = scope.bytes
        case .json:
            var resource: [UInt8] = Array(#"{"attributes":["#.utf8)
            for (index, attribute) in resourceAttributes.enumerated() {
                if index > 0 { resource.append(UInt8(ascii: ",")) }
                Self.appendJSONAttribute(attribute.key, .string(attribute.value), to: &resource)
            }
            resource.append(contentsOf: "]}".utf8)
            encodedResource = resource
            var scope: [UInt8] = Array(#"{"name":"#.utf8)
            EventJSONCodec.appendString(SDKInfo.name, to: &scope)
            scope.append(contentsOf: #","version":"#.utf8)
            EventJSONCodec.appendString(SDKInfo.version, to: &scope)
            scope.append(UInt8(ascii: "}"))
            encodedScope = scope
        }
    }

    /// The request body for `events`.
    public func encode(_ events: [Event]) -> [UInt8] {
        var capacity = encodedResource.count + 64
        for event in events { capacity += event.estimatedEncodedSize * 3 / 2 }
        switch encoding {
        case .protobuf: return encodeProtobuf(events, capacity: capacity)
        case .json: return encodeJSON(events, capacity: capacity)
        }
    }

    // MARK: Protobuf

    private func encodeProtobuf(_ events: [Event], capacity: Int) -> [UInt8] {
        var writer = ProtobufWriter(capacity: capacity)
        // ExportLogsServiceRequest.resource_logs = 1
        writer.appendMessage(1) { resourceLogs in
            resourceLogs.appendEncodedMessage(1, encodedResource)  // ResourceLogs.resource = 1
            resourceLogs.appendMessage(2) { scopeLogs in  // ResourceLogs.scope_logs = 2
                scopeLogs.appendEncodedMessage(1, encodedScope)  // ScopeLogs.scope = 1
                var sharedLayer: OTLPLogRecordMapping.SharedLayerFragment?
                for event in events {
                    scopeLogs.appendMessage(2) {  // ScopeLogs.log_records = 2
                        Self.appendProtobufLogRecord(event, sharedLayer: &sharedLayer, to: &$0)
                    }
                }
            }
        }
        return writer.bytes
    }

    /// The fields of one `LogRecord`, in field-number order.
    private static func appendProtobufLogRecord(
        _ event: Event,
        sharedLayer: inout OTLPLogRecordMapping.SharedLayerFragment?,
        to record: inout ProtobufWriter
    ) {
        let time = OTLPLogRecordMapping.unixNanoseconds(event.receivedAt)
        let trace = OTLPLogRecordMapping.trace(of: event)
        record.appendFixed64(1, time)  // time_unix_nano
        record.appendUInt32(2, OTLPLogRecordMapping.severityNumber)  // severity_number
        record.appendString(3, OTLPLogRecordMapping.severityText)  // severity_text
        OTLPLogRecordMapping.forEachFieldAttribute(of: event) { key, value in
            record.appendAttribute(key, value)  // attributes = 6
        }
        OTLPLogRecordMapping.appendPayloadAttributes(
            of: event,
            traceTaken: trace != nil,
            cache: &sharedLayer,
            to: &record
        )
        if let trace {
            if trace.flags != 0 { record.appendFixed32(8, trace.flags) }  // flags
            record.appendBytes(9, trace.traceID)  // trace_id
            record.appendBytes(10, trace.spanID)  // span_id
        }
        record.appendFixed64(11, time)  // observed_time_unix_nano
        record.appendString(12, event.type)  // event_name
    }

    /// A `KeyValue` (key = 1, value = 2) whose `AnyValue` sets exactly one member of its
    /// `oneof` — written even when it is the default (0, false, ""), since presence counts.
    static func appendProtobufAttribute(
        _ key: String,
        _ value: PayloadValue,
        field: UInt32,
        to writer: inout ProtobufWriter
    ) {
        writer.appendMessage(field) { keyValue in
            keyValue.appendString(1, key)
            keyValue.appendMessage(2) { anyValue in
                switch value {
                case .string(let string): anyValue.appendString(1, string)  // string_value
                case .bool(let bool): anyValue.appendBool(2, bool)  // bool_value
                case .int(let int): anyValue.appendInt64(3, int)  // int_value
                case .double(let double): anyValue.appendDouble(4, double)  // double_value
                }
            }
        }
    }

    // MARK: JSON

    private func encodeJSON(_ events: [Event], capacity: Int) -> [UInt8] {
        var writer = JSONAttributeWriter()
        writer.bytes.reserveCapacity(capacity)
        writer.bytes.append(contentsOf: #"{"resourceLogs":[{"resource":"#.utf8)
        writer.bytes.append(contentsOf: encodedResource)
        writer.bytes.append(contentsOf: #","scopeLogs":[{"scope":"#.utf8)
        writer.bytes.append(contentsOf: encodedScope)
        writer.bytes.append(contentsOf: #","logRecords":["#.utf8)
        var sharedLayer: OTLPLogRecordMapping.SharedLayerFragment?
        for (index, event) in events.enumerated() {
            if index > 0 { writer.bytes.append(UInt8(ascii: ",")) }
            Self.appendJSONLogRecord(event, sharedLayer: &sharedLayer, to: &writer)
        }
        writer.bytes.append(contentsOf: "]}]}]}".utf8)
        return writer.bytes
    }

    private static func appendJSONLogRecord(
        _ event: Event,
        sharedLayer: inout OTLPLogRecordMapping.SharedLayerFragment?,
        to writer: inout JSONAttributeWriter
    ) {
        let time = OTLPLogRecordMapping.unixNanoseconds(event.receivedAt)
        let trace = OTLPLogRecordMapping.trace(of: event)
        writer.bytes.append(contentsOf: #"{"timeUnixNano":""#.utf8)
        appendUnsigned(time, to: &writer.bytes)
        writer.bytes.append(contentsOf: #"","observedTimeUnixNano":""#.utf8)
        appendUnsigned(time, to: &writer.bytes)
        writer.bytes.append(contentsOf: #"","severityNumber":"#.utf8)
        appendUnsigned(UInt64(OTLPLogRecordMapping.severityNumber), to: &writer.bytes)
        writer.bytes.append(contentsOf: #","severityText":"#.utf8)
        EventJSONCodec.appendString(OTLPLogRecordMapping.severityText, to: &writer.bytes)
        writer.bytes.append(contentsOf: #","eventName":"#.utf8)
        EventJSONCodec.appendString(event.type, to: &writer.bytes)
        if let trace {
            writer.bytes.append(contentsOf: #","traceId":""#.utf8)
            W3CTraceParent.appendHex(trace.traceID, to: &writer.bytes)
            writer.bytes.append(contentsOf: #"","spanId":""#.utf8)
            W3CTraceParent.appendHex(trace.spanID, to: &writer.bytes)
            writer.bytes.append(UInt8(ascii: "\""))
            if trace.flags != 0 {
                writer.bytes.append(contentsOf: #","flags":"#.utf8)
                appendUnsigned(UInt64(trace.flags), to: &writer.bytes)
            }
        }
        writer.bytes.append(contentsOf: #","attributes":["#.utf8)
        // The field attributes come first, and there is always one (`log.record.uid`): every
        // attribute after it, cached ones included, is written with its leading comma.
        var first = true
        OTLPLogRecordMapping.forEachFieldAttribute(of: event) { key, value in
            if first {
                appendJSONAttribute(key, value, to: &writer.bytes)
                first = false
            } else {
                writer.appendAttribute(key, value)
            }
        }
        OTLPLogRecordMapping.appendPayloadAttributes(
            of: event,
            traceTaken: trace != nil,
            cache: &sharedLayer,
            to: &writer
        )
        writer.bytes.append(contentsOf: "]}".utf8)
    }

    /// `{"key":…,"value":{"stringValue"|"boolValue"|"intValue"|"doubleValue":…}}`.
    static func appendJSONAttribute(_ key: String, _ value: PayloadValue, to buffer: inout [UInt8]) {
        buffer.append(contentsOf: #"{"key":"#.utf8)
        EventJSONCodec.appendString(key, to: &buffer)
        switch value {
        case .string(let string):
            buffer.append(contentsOf: #","value":{"stringValue":"#.utf8)
            EventJSONCodec.appendString(string, to: &buffer)
        case .bool(let bool):
            buffer.append(contentsOf: (bool ? #","value":{"boolValue":true"# : #","value":{"boolValue":false"#).utf8)
        case .int(let int):
            // int64 is a decimal string in protobuf's JSON mapping.
            buffer.append(contentsOf: #","value":{"intValue":""#.utf8)
            EventJSONCodec.appendInteger(int, to: &buffer)
            buffer.append(UInt8(ascii: "\""))
        case .double(let double):
            buffer.append(contentsOf: #","value":{"doubleValue":"#.utf8)
            EventJSONCodec.appendDouble(double, to: &buffer)
        }
        buffer.append(contentsOf: "}}".utf8)
    }

    /// Nanosecond times stay below `Int64.max` until the year 2262.
    private static func appendUnsigned(_ value: UInt64, to buffer: inout [UInt8]) {
        EventJSONCodec.appendInteger(Int64(clamping: value), to: &buffer)
    }
}
/// Protobuf attributes: `KeyValue` messages in `LogRecord.attributes` (field 6).
extension ProtobufWriter: OTLPAttributeWriter {
    init() {
        self.init(capacity: 0)
    }

    mutating func appendAttribute(_ key: String, _ value: PayloadValue) {
        OTLPLogsEncoder.appendProtobufAttribute(key, value, field: 6, to: &self)
    }
}

/// OTLP JSON attributes, each with a leading comma (it follows the record's first attribute).
struct JSONAttributeWriter: OTLPAttributeWriter {
    var bytes: [UInt8]

    init() {
        bytes = []
    }

    mutating func appendAttribute(_ key: String, _ value: PayloadValue) {
        bytes.append(UInt8(ascii: ","))
        OTLPLogsEncoder.appendJSONAttribute(key, value, to: &bytes)
    }
}
#endif
