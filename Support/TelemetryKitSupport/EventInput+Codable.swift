public import TelemetryKit

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `EventInput` as JSON, for queues that hold events across restarts (consent, durations).
///
/// Here rather than in the API core: persisting inputs is the runtime's business (the client's
/// durations, the consent processor's queue), and TelemetryDeck v3's `EventInput` is not
/// `Codable`. An app that imports `TelemetryKitDefaults` sees the conformance as before.
///
/// Parameter values keep their type (`.double(3)` stays a double, `"1"` stays a string), and
/// the timestamp is stored as seconds since 1970 whatever the encoder's date strategy is.
extension EventInput: Codable {
    private enum CodingKeys: String, CodingKey {
        case name, parameters, floatValue, customUserID, timestamp, skipsReservedPrefixValidation
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let stored = try container.decodeIfPresent([String: StoredPayloadValue].self, forKey: .parameters) ?? [:]
        self.init(
            try container.decode(String.self, forKey: .name),
            parameters: EventParameters(stored.mapValues(\.value)),
            floatValue: try container.decodeIfPresent(Double.self, forKey: .floatValue),
            customUserID: try container.decodeIfPresent(String.self, forKey: .customUserID),
            timestamp: Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .timestamp)),
            skipsReservedPrefixValidation: try container.decodeIfPresent(
                Bool.self,
                forKey: .skipsReservedPrefixValidation
            ) ?? false
        )
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        if !parameters.isEmpty {
            try container.encode(parameters.values.mapValues(StoredPayloadValue.init), forKey: .parameters)
        }
        try container.encodeIfPresent(floatValue, forKey: .floatValue)
        try container.encodeIfPresent(customUserID, forKey: .customUserID)
        try container.encode(timestamp.timeIntervalSince1970, forKey: .timestamp)
        if skipsReservedPrefixValidation {
            try container.encode(true, forKey: .skipsReservedPrefixValidation)
        }
    }
}

/// A payload value stored with its type, e.g. `{"d": 3}` for `.double(3)`.
///
/// `PayloadValue`'s own encoding is the wire format (native JSON), which cannot tell `3.0`
/// from `3` when read back; persisted queues need the exact value.
package struct StoredPayloadValue: Codable, Sendable {
    package let value: PayloadValue

    package init(_ value: PayloadValue) {
        self.value = value
    }

    private enum CodingKeys: String, CodingKey {
        case string = "s"
        case int = "i"
        case double = "d"
        case bool = "b"
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        if let value = try container.decodeIfPresent(String.self, forKey: .string) {
            self.value = .string(value)
        } else if let value = try container.decodeIfPresent(Int64.self, forKey: .int) {
            self.value = .int(value)
        } else if let value = try container.decodeIfPresent(Double.self, forKey: .double) {
            self.value = .double(value)
        } else if let value = try container.decodeIfPresent(Bool.self, forKey: .bool) {
            self.value = .bool(value)
        } else {
            throw DecodingError.dataCorrupted(
                DecodingError.Context(codingPath: decoder.codingPath, debugDescription: "no typed payload value")
            )
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        switch value {
        case .string(let value): try container.encode(value, forKey: .string)
        case .int(let value): try container.encode(value, forKey: .int)
        case .double(let value):
            // JSON has no NaN or infinity; keep them as their string form rather than fail.
            if value.isFinite {
                try container.encode(value, forKey: .double)
            } else {
                try container.encode(PayloadValue.double(value).stringValue, forKey: .string)
            }
        case .bool(let value): try container.encode(value, forKey: .bool)
        }
    }
}
