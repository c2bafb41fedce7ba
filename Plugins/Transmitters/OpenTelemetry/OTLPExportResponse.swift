#if OpenTelemetry
import TelemetryKitHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Reads what an OTLP/HTTP receiver answers: an `ExportLogsServiceResponse` after a 2xx
/// (its `partial_success`), a `google.rpc.Status` after an error — protobuf or JSON, as the
/// response's `Content-Type` says (the receiver answers in the request's encoding).
enum OTLPExportResponse {
    /// `ExportLogsPartialSuccess`: rejected_log_records = 1 (int64), error_message = 2.
    struct PartialSuccess: Equatable {
        var rejectedLogRecords: Int64
        var errorMessage: String
    }

    /// The partial success a 2xx answer reports, or `nil` when it reports full success (an
    /// empty body, no `partial_success`, or one with nothing refused and no message).
    static func partialSuccess(in response: HTTPResponse) throws(OTLPResponseError) -> PartialSuccess? {
        let body = [UInt8](response.body)
        guard !body.isEmpty else { return nil }
        let partial: PartialSuccess?
        if isJSON(response, body: body) {
            partial = try JSONPartialSuccess.decode(body)
        } else {
            var reader = ProtobufReader(body)
            var found: PartialSuccess?
            while let field = try reader.next() {
                guard field.number == 1, case .lengthDelimited(let bytes) = field.value else { continue }
                var inner = ProtobufReader(bytes)
                var result = PartialSuccess(rejectedLogRecords: 0, errorMessage: "")
                while let member = try inner.next() {
                    switch (member.number, member.value) {
                    case (1, .varint(let value)): result.rejectedLogRecords = Int64(bitPattern: value)
                    case (2, .lengthDelimited(let bytes)): result.errorMessage = String(decoding: bytes, as: UTF8.self)
                    default: continue
                    }
                }
                found = result
            }
            partial = found
        }
        guard let partial, partial.rejectedLogRecords != 0 || !partial.errorMessage.isEmpty else { return nil }
        return partial
    }

    /// The `message` of a `google.rpc.Status` error body (code = 1, message = 2), if it is one.
    static func statusMessage(in response: HTTPResponse) -> String? {
        let body = [UInt8](response.body)
        guard !body.isEmpty else { return nil }
        if isJSON(response, body: body) {
            struct Status: Decodable { var message: String? }
            return (try? JSONDecoder().decode(Status.self, from: Data(body)))?.message
        }
        guard response.value(forHeader: "Content-Type")?.lowercased().contains("protobuf") == true else { return nil }
        var reader = ProtobufReader(body)
        var message: String?
        do {
            while let field = try reader.next() {
                if field.number == 2, case .lengthDelimited(let bytes) = field.value {
                    message = String(decoding: bytes, as: UTF8.self)
                }
            }
        } catch {
            return nil
        }
        return message
    }

    private static func isJSON(_ response: HTTPResponse, body: [UInt8]) -> Bool {
        if let type = response.value(forHeader: "Content-Type")?.lowercased() {
            if type.contains("json") { return true }
            if type.contains("protobuf") { return false }
        }
        return body.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 } == UInt8(ascii: "{")
    }

    /// `{"partialSuccess":{"rejectedLogRecords":"2","errorMessage":"…"}}` (the int64 as a
    /// string or a number; protobuf's JSON mapping also allows the field names as in the proto).
    private struct JSONPartialSuccess: Decodable {
        var partialSuccess: Inner?

        struct Inner: Decodable {
            var rejectedLogRecords: Int64 = 0
            var errorMessage: String = ""

            enum CodingKeys: String, CodingKey {
                case rejectedLogRecords, errorMessage
                case rejected_log_records, error_message
            }

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                for key in [CodingKeys.rejectedLogRecords, .rejected_log_records] where container.contains(key) {
                    if let number = try? container.decode(Int64.self, forKey: key) {
                        rejectedLogRecords = number
                    } else if let text = try? container.decode(String.self, forKey: key), let number = Int64(text) {
                        rejectedLogRecords = number
                    } else {
                        throw DecodingError.dataCorruptedError(
                            forKey: key,
                            in: container,
                            debugDescription: "rejectedLogRecords is not an int64"
                        )
                    }
                }
                for key in [CodingKeys.errorMessage, .error_message] where container.contains(key) {
                    errorMessage = try container.decode(String.self, forKey: key)
                }
            }
        }

        enum CodingKeys: String, CodingKey {
            case partialSuccess, partial_success
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            partialSuccess =
                try container.decodeIfPresent(Inner.self, forKey: .partialSuccess)
                ?? container.decodeIfPresent(Inner.self, forKey: .partial_success)
        }

        static func decode(_ body: [UInt8]) throws(OTLPResponseError) -> PartialSuccess? {
            let decoded: JSONPartialSuccess
            do {
                decoded = try JSONDecoder().decode(JSONPartialSuccess.self, from: Data(body))
            } catch {
                throw OTLPResponseError("the JSON answer is not an ExportLogsServiceResponse: \(error)")
            }
            return decoded.partialSuccess.map {
                PartialSuccess(rejectedLogRecords: $0.rejectedLogRecords, errorMessage: $0.errorMessage)
            }
        }
    }
}

/// A receiver's answer that is not the message OTLP says it is.
public struct OTLPResponseError: Error, Sendable, Hashable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// Walks the fields of a protobuf message: number and value, unknown fields included.
struct ProtobufReader {
    enum Value {
        case varint(UInt64)
        case fixed64(UInt64)
        case lengthDelimited([UInt8])
        case fixed32(UInt32)
    }

    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The next field, `nil` at the end.
    mutating func next() throws(OTLPResponseError) -> (number: UInt64, value: Value)? {
        guard index < bytes.count else { return nil }
        let tag = try varint()
        let number = tag >> 3
        guard number > 0 else { throw OTLPResponseError("field number 0 in a protobuf answer") }
        switch tag & 7 {
        case 0:
            return (number, .varint(try varint()))
        case 1:
            return (number, .fixed64(UInt64(littleEndianBytes: try take(8))))
        case 2:
            let length = try varint()
            guard length <= UInt64(bytes.count - index) else {
                throw OTLPResponseError("a protobuf field runs past the end of the answer")
            }
            return (number, .lengthDelimited(Array(try take(Int(length)))))
        case 5:
            return (number, .fixed32(UInt32(truncatingIfNeeded: UInt64(littleEndianBytes: try take(4)))))
        default:
            throw OTLPResponseError("unsupported protobuf wire type \(tag & 7)")
        }
    }

    private mutating func varint() throws(OTLPResponseError) -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while index < bytes.count, shift < 64 {
            let byte = bytes[index]
            index += 1
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
        }
        throw OTLPResponseError("a truncated or overlong varint in a protobuf answer")
    }

    private mutating func take(_ count: Int) throws(OTLPResponseError) -> ArraySlice<UInt8> {
        guard count <= bytes.count - index else { throw OTLPResponseError("a truncated protobuf answer") }
        defer { index += count }
        return bytes[index..<index + count]
    }
}

extension UInt64 {
    fileprivate init(littleEndianBytes bytes: ArraySlice<UInt8>) {
        var value: UInt64 = 0
        for (shift, byte) in bytes.enumerated() { value |= UInt64(byte) << (8 * UInt64(shift)) }
        self = value
    }
}
#endif
