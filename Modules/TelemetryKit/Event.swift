#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A finalized event: what caches store and transmitters send.
///
/// `receivedAt` carries millisecond precision (the wire format's precision), so an event
/// read back from a cache compares equal to the one that was written.
public struct Event: Sendable, Hashable, Identifiable {
    /// A fresh UUID per event; receivers use it to drop re-sent duplicates.
    public var id: UUID
    public var appID: String
    /// The event name.
    public var type: String
    /// Lowercase hex SHA-256 of the user identifier and the salt.
    public var clientUser: String
    public var sessionID: String?
    public var receivedAt: Date
    public var payload: [String: PayloadValue]
    public var floatValue: Double?
    public var isTestMode: Bool

    public init(
        id: UUID = UUID(),
        appID: String,
        type: String,
        clientUser: String,
        sessionID: String? = nil,
        receivedAt: Date,
        payload: [String: PayloadValue] = [:],
        floatValue: Double? = nil,
        isTestMode: Bool = false
    ) {
        self.id = id
        self.appID = appID
        self.type = type
        self.clientUser = clientUser
        self.sessionID = sessionID
        self.receivedAt = receivedAt
        self.payload = payload
        self.floatValue = floatValue
        self.isTestMode = isTestMode
    }

    /// A cheap, deterministic estimate of the event's size on the wire, in bytes.
    ///
    /// Used by the dispatcher to respect `DeliveryPolicy.maxBatchBytes` without encoding.
    public var estimatedEncodedSize: Int {
        // Fixed fields: braces, keys, quotes, a UUID, a 24-character date, a 64-character hash.
        var size = 200 + appID.utf8.count + type.utf8.count + clientUser.utf8.count + (sessionID?.utf8.count ?? 4)
        for (key, value) in payload {
            size += key.utf8.count + 4
            switch value {
            case .string(let string): size += string.utf8.count + 2
            case .int: size += 20
            case .double: size += 24
            case .bool: size += 5
            }
        }
        return size
    }
}

extension Event: Codable {
    enum CodingKeys: String, CodingKey {
        case id, appID, type, clientUser, sessionID, receivedAt, payload, floatValue, isTestMode
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(UUID.self, forKey: .id)
        appID = try container.decode(String.self, forKey: .appID)
        type = try container.decode(String.self, forKey: .type)
        clientUser = try container.decode(String.self, forKey: .clientUser)
        sessionID = try container.decodeIfPresent(String.self, forKey: .sessionID)
        if let string = try? container.decode(String.self, forKey: .receivedAt) {
            guard let date = ISO8601.date(from: string) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .receivedAt,
                    in: container,
                    debugDescription: "receivedAt '\(string)' is not an ISO 8601 UTC timestamp."
                )
            }
            receivedAt = date
        } else {
            receivedAt = Date(timeIntervalSince1970: try container.decode(Double.self, forKey: .receivedAt))
        }
        payload = try container.decodeIfPresent([String: PayloadValue].self, forKey: .payload) ?? [:]
        floatValue = try container.decodeIfPresent(Double.self, forKey: .floatValue)
        isTestMode = try container.decodeIfPresent(Bool.self, forKey: .isTestMode) ?? false
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(appID, forKey: .appID)
        try container.encode(type, forKey: .type)
        try container.encode(clientUser, forKey: .clientUser)
        try container.encodeIfPresent(sessionID, forKey: .sessionID)
        try container.encode(ISO8601.string(from: receivedAt), forKey: .receivedAt)
        try container.encode(payload, forKey: .payload)
        if let floatValue, floatValue.isFinite {
            try container.encode(floatValue, forKey: .floatValue)
        }
        try container.encode(isTestMode, forKey: .isTestMode)
    }
}
