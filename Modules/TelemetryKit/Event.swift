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
/// The payload is kept in two layers, so that the finalizer does not copy a whole payload per
/// event: the context metadata, which is the *same* dictionary for every event until a
/// processor's facts change (a cached event therefore costs its own parameters, not another
/// copy of ~50 shared metadata entries), and the event's own entries, which win. ``payload``
/// reads the merged dictionary (merging on each read when there are two layers); hot paths use
/// ``payloadValue(forKey:)``, ``setPayloadValue(_:forKey:)`` and ``forEachPayloadEntry(_:)``,
/// which work on the layers directly.
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
    /// Whether the event is test data: `"true"` or `"false"`, a string as on the wire and in
    /// TelemetryDeck v3, so v3 code such as `event.isTestMode == "true"` reads it unchanged.
    /// Any other string counts as `"false"`.
    public var isTestMode: String
    /// Shared lower layer of the payload (context metadata).
    @usableFromInline package var sharedPayload: [String: PayloadValue]
    /// The event's own entries; they win over `sharedPayload`.
    @usableFromInline package var ownPayload: [String: PayloadValue]

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
    package init(
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
        self.isTestMode = isTestMode ? "true" : "false"
    }

    /// The payload as one dictionary. Reading a layered payload merges the layers (a copy);
    /// writing through it makes the payload a single layer.
    public var payload: [String: PayloadValue] {
        get {
            if sharedPayload.isEmpty { return ownPayload }
            if ownPayload.isEmpty { return sharedPayload }
            return mergedPayload()
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

    /// Sets (or, with nil, removes) one payload value. A value set goes to the event's own
    /// entries, above the shared layer, which is not copied; removing a shared key merges the
    /// layers first.
    @inlinable
    public mutating func setPayloadValue(_ value: PayloadValue?, forKey key: String) {
        if value == nil && !sharedPayload.isEmpty && sharedPayload[key] != nil { flattenPayload() }
        ownPayload[key] = value
    }

    /// Calls `body` once per payload entry (the merged view), without merging the layers.
    @inlinable
    public func forEachPayloadEntry(_ body: (String, PayloadValue) throws -> Void) rethrows {
        if !sharedPayload.isEmpty {
            let shadowed = sharedKeysShadowed()
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
    package var payloadCount: Int {
        if sharedPayload.isEmpty { return ownPayload.count }
        var count = sharedPayload.count
        for key in ownPayload.keys where sharedPayload[key] == nil { count += 1 }
        return count
    }

    /// The shared keys the event's own entries shadow, found with one lookup per own key rather
    /// than one per shared key: usually none, and then the shared layer can be walked (or its
    /// encoding reused) unchecked.
    @usableFromInline
    package func sharedKeysShadowed() -> [String] {
        guard !sharedPayload.isEmpty else { return [] }
        var shadowed: [String] = []
        for key in ownPayload.keys where sharedPayload[key] != nil { shadowed.append(key) }
        return shadowed
    }

    /// The layers merged into one dictionary.
    func mergedPayload() -> [String: PayloadValue] {
        guard !sharedPayload.isEmpty else { return ownPayload }
        var merged = sharedPayload
        merged.reserveCapacity(sharedPayload.count + ownPayload.count)
        for (key, value) in ownPayload { merged[key] = value }
        return merged
    }

    /// Makes the payload a single layer (the merged dictionary).
    @usableFromInline
    mutating func flattenPayload() {
        guard !sharedPayload.isEmpty else { return }
        ownPayload = mergedPayload()
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
        if lhs.sharedPayload.isEmpty && rhs.sharedPayload.isEmpty {
            return lhs.ownPayload == rhs.ownPayload
        }
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
        isTestMode = try container.decodeIfPresent(Bool.self, forKey: .isTestMode) == true ? "true" : "false"
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
        try container.encode(isTestMode == "true", forKey: .isTestMode)
    }
}
