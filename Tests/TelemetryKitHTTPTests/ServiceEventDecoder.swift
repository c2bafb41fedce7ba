import Foundation
import TelemetryKit

/// One event decoded the way TelemetryDeck's ingest service decodes it: a `Decodable` with
/// `isTestMode: String`, a `DateFormatter` of `yyyy-MM-dd'T'HH:mm:ssZ` (en_US_POSIX, UTC), and
/// — stricter than `Decodable` alone — unknown members refused, so an extra `id` fails too.
struct ServiceEvent: Decodable, Equatable {
    /// The members the service reads; anything else is refused.
    static let members: Set<String> = [
        "appID", "type", "clientUser", "sessionID", "receivedAt", "payload", "floatValue", "isTestMode",
    ]

    var appID: String
    var type: String
    var clientUser: String
    var sessionID: String?
    var receivedAt: Date
    var payload: [String: ServicePayloadValue]
    var floatValue: Double?
    var isTestMode: String

    private enum CodingKeys: String, CodingKey {
        case appID, type, clientUser, sessionID, receivedAt, payload, floatValue, isTestMode
    }

    /// Any member name, to see the members `CodingKeys` would silently skip.
    private struct AnyMember: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(
        appID: String,
        type: String,
        clientUser: String,
        sessionID: String?,
        receivedAt: Date,
        payload: [String: ServicePayloadValue],
        floatValue: Double?,
        isTestMode: String
    ) {
        self.appID = appID
        self.type = type
        self.clientUser = clientUser
        self.sessionID = sessionID
        self.receivedAt = receivedAt
        self.payload = payload
        self.floatValue = floatValue
        self.isTestMode = isTestMode
    }

    init(from decoder: any Decoder) throws {
        let unknown = Set(try decoder.container(keyedBy: AnyMember.self).allKeys.map(\.stringValue))
            .subtracting(Self.members)
        guard unknown.isEmpty else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "unknown members \(unknown.sorted())")
            )
        }
        let container = try decoder.container(keyedBy: CodingKeys.self)
        appID = try container.decode(String.self, forKey: .appID)
        type = try container.decode(String.self, forKey: .type)
        clientUser = try container.decode(String.self, forKey: .clientUser)
        sessionID = try container.decodeIfPresent(String.self, forKey: .sessionID)
        receivedAt = try container.decode(Date.self, forKey: .receivedAt)
        payload = try container.decode([String: ServicePayloadValue].self, forKey: .payload)
        floatValue = try container.decodeIfPresent(Double.self, forKey: .floatValue)
        isTestMode = try container.decode(String.self, forKey: .isTestMode)
        guard isTestMode == "true" || isTestMode == "false" else {
            throw DecodingError.dataCorruptedError(
                forKey: .isTestMode,
                in: container,
                debugDescription: "isTestMode is '\(isTestMode)'"
            )
        }
    }

    /// The events of a request body, decoded like the service.
    static func decodeBody(_ body: [UInt8]) throws -> [ServiceEvent] {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ssZ"
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .formatted(formatter)
        return try decoder.decode([ServiceEvent].self, from: Data(body))
    }

    /// What the service should read for `event`: whole seconds, the test mode as a string,
    /// no non-finite `floatValue`, non-finite payload numbers as their names.
    init(expecting event: Event) {
        var payload: [String: ServicePayloadValue] = [:]
        for (key, value) in event.payload {
            switch value {
            case .string(let string): payload[key] = .string(string)
            case .bool(let bool): payload[key] = .bool(bool)
            case .int(let int): payload[key] = .number(Double(int))
            case .double(let double):
                payload[key] =
                    double.isFinite
                    ? .number(double) : .string(double.isNaN ? "NaN" : (double < 0 ? "-Infinity" : "Infinity"))
            }
        }
        self.init(
            appID: event.appID,
            type: event.type,
            clientUser: event.clientUser,
            sessionID: event.sessionID,
            receivedAt: Date(timeIntervalSince1970: event.receivedAt.timeIntervalSince1970.rounded(.down)),
            payload: payload,
            floatValue: event.floatValue.flatMap { $0.isFinite ? $0 : nil },
            isTestMode: event.isTestMode
        )
    }
}

/// A payload value as the service reads it: a JSON string, number or boolean (null, arrays
/// and objects are refused).
enum ServicePayloadValue: Decodable, Equatable {
    case string(String)
    case number(Double)
    case bool(Bool)

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let bool = try? container.decode(Bool.self) {
            self = .bool(bool)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else {
            self = .string(try container.decode(String.self))
        }
    }
}
