#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A finalized event: what caches store and transmitters send.
///
/// `receivedAt` carries millisecond precision (the wire format's precision), so an event
/// read back from a cache compares equal to the one that was written.
///
/// ## Payload storage
/// The finalizer makes the payload in two layers without copying either: the context
/// metadata, which is the *same* dictionary for every event until a processor's facts
/// change, and the event's own parameters on top (they win on collisions). A cached
/// event therefore costs its own parameters, not another copy of ~50 shared metadata
/// entries. ``payload`` reads the merged dictionary (merging on each read when layered);
/// hot paths use ``payloadValue(forKey:)``, ``setPayloadValue(_:forKey:)`` and
/// ``forEachPayloadEntry(_:)``, which work on the layers directly.
public struct Event: Sendable, Identifiable {
    /// A fresh UUID per event; receivers use it to drop re-sent duplicates.
    public var id: UUID
    public var appID: String
    /// The event name.
    public var type: String
    /// Lowercase hex SHA-256 of the user identifier and the salt.
    public var clientUser: String
    public var sessionID: String?
    public var receivedAt: Date
    public var floatValue: Double?
    public var isTestMode: Bool
    /// Shared lower layer of the payload (context metadata).
    @usableFromInline var sharedPayload: [String: PayloadValue]
    /// The event's own entries; they win over `sharedPayload`.
    @usableFromInline var ownPayload: [String: PayloadValue]

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
        self.init(
            id: id,
            appID: appID,
            type: type,
            clientUser: clientUser,
            sessionID: sessionID,
            receivedAt: receivedAt,
            sharedPayload: [:],
            ownPayload: payload,
            floatValue: floatValue,
            isTestMode: isTestMode
        )
    }

    /// An event whose payload is `shared` with `own` on top (`own` wins), kept as two layers.
    /// Pass the same `shared` dictionary to many events to store it once.
    public init(
        id: UUID = UUID(),
        appID: String,
        type: String,
        clientUser: String,
        sessionID: String? = nil,
        receivedAt: Date,
        sharedPayload shared: [String: PayloadValue],
        ownPayload own: [String: PayloadValue],
        floatValue: Double? = nil,
        isTestMode: Bool = false
    ) {
        self.id = id
        self.appID = appID
        self.type = type
        self.clientUser = clientUser
        self.sessionID = sessionID
        self.receivedAt = receivedAt
        self.sharedPayload = shared
        self.ownPayload = own
        self.floatValue = floatValue
        self.isTestMode = isTestMode
    }

    /// The payload as one dictionary. Reading a layered payload merges the layers (a copy);
    /// writing through it makes the payload a single layer.
    public var payload: [String: PayloadValue] {
        get {
            if sharedPayload.isEmpty { return ownPayload }
            if ownPayload.isEmpty { return sharedPayload }
            var merged = sharedPayload
            for (key, value) in ownPayload { merged[key] = value }
            return merged
        }
        set {
            sharedPayload = [:]
            ownPayload = newValue
        }
        _modify {
            flattenPayload()
            yield &ownPayload
        }
    }

    /// The payload value for `key`, without merging the layers.
    @inlinable
    public func payloadValue(forKey key: String) -> PayloadValue? {
        if let own = ownPayload[key] { return own }
        return sharedPayload.isEmpty ? nil : sharedPayload[key]
    }

    /// Sets (or, with nil, removes) one payload value. Setting writes to the event's own
    /// layer; the shared layer is left alone unless a key in it is removed.
    @inlinable
    public mutating func setPayloadValue(_ value: PayloadValue?, forKey key: String) {
        if let value {
            ownPayload[key] = value
        } else if sharedPayload[key] != nil {
            flattenPayload()
            ownPayload.removeValue(forKey: key)
        } else {
            ownPayload.removeValue(forKey: key)
        }
    }

    /// Makes room in the event's own layer for `additional` more entries, so that a series of
    /// ``setPayloadValue(_:forKey:)`` calls copies the layer at most once instead of copying
    /// it and then growing it.
    @inlinable
    public mutating func reservePayloadCapacity(_ additional: Int) {
        let needed = ownPayload.count + additional
        if ownPayload.capacity < needed { ownPayload.reserveCapacity(needed) }
    }

    /// Calls `body` once per payload entry (the merged view), without merging the layers.
    @inlinable
    public func forEachPayloadEntry(_ body: (String, PayloadValue) throws -> Void) rethrows {
        if !sharedPayload.isEmpty {
            // Find the few shared keys the own layer shadows with one lookup per own key (not
            // one per shared key): usually none, and the shared layer is walked unchecked.
            var shadowed: [String] = []
            for key in ownPayload.keys where sharedPayload[key] != nil {
                shadowed.append(key)
            }
            if shadowed.isEmpty {
                for (key, value) in sharedPayload {
                    try body(key, value)
                }
            } else {
                for (key, value) in sharedPayload where !shadowed.contains(key) {
                    try body(key, value)
                }
            }
        }
        for (key, value) in ownPayload {
            try body(key, value)
        }
    }

    /// The number of payload entries (the merged view).
    public var payloadCount: Int {
        if sharedPayload.isEmpty { return ownPayload.count }
        var count = sharedPayload.count
        for key in ownPayload.keys where sharedPayload[key] == nil { count += 1 }
        return count
    }

    /// Makes the payload a single layer (the merged dictionary).
    @usableFromInline
    mutating func flattenPayload() {
        guard !sharedPayload.isEmpty else { return }
        if ownPayload.isEmpty {
            ownPayload = sharedPayload
        } else {
            var merged = sharedPayload
            for (key, value) in ownPayload { merged[key] = value }
            ownPayload = merged
        }
        sharedPayload = [:]
    }

    /// A cheap, deterministic estimate of the event's size on the wire, in bytes.
    ///
    /// Used by the dispatcher to respect `DeliveryPolicy.maxBatchBytes` without encoding.
    public var estimatedEncodedSize: Int {
        // Fixed fields: braces, keys, quotes, a UUID, a 24-character date, a 64-character hash.
        var size = 200 + appID.utf8.count + type.utf8.count + clientUser.utf8.count + (sessionID?.utf8.count ?? 4)
        forEachPayloadEntry { key, value in
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

extension Event: Hashable {
    /// Events are equal when every field and the merged payloads are equal, however the
    /// payloads are layered.
    public static func == (lhs: Event, rhs: Event) -> Bool {
        guard
            lhs.id == rhs.id, lhs.appID == rhs.appID, lhs.type == rhs.type, lhs.clientUser == rhs.clientUser,
            lhs.sessionID == rhs.sessionID, lhs.receivedAt == rhs.receivedAt, lhs.floatValue == rhs.floatValue,
            lhs.isTestMode == rhs.isTestMode
        else { return false }
        if lhs.sharedPayload.isEmpty && rhs.sharedPayload.isEmpty { return lhs.ownPayload == rhs.ownPayload }
        return lhs.payload == rhs.payload
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(id)
        hasher.combine(appID)
        hasher.combine(type)
        hasher.combine(clientUser)
        hasher.combine(sessionID)
        hasher.combine(receivedAt)
        hasher.combine(payload)
        hasher.combine(floatValue)
        hasher.combine(isTestMode)
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
        sharedPayload = [:]
        ownPayload = try container.decodeIfPresent([String: PayloadValue].self, forKey: .payload) ?? [:]
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
