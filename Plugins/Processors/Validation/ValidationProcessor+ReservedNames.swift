extension ValidationProcessor {
    /// Names an event or a parameter key must not have (compared ignoring ASCII case, as
    /// backends often fold column names): the fields of a finalized ``Event``, which a payload
    /// key would shadow, and TelemetryDeck's legacy payload keys (`platform`, `appVersion`, …),
    /// which its dashboards still read as the SDK's own. The list is TelemetryDeck v3's, plus
    /// the event fields v3 does not name (`receivedAt`, `payload`, `isTestMode`, `id`).
    public static let reservedParameterNames: [String] = [
        // The fields of an event.
        "type", "appID", "clientUser", "sessionID", "receivedAt", "payload", "floatValue", "isTestMode", "id",
        // TelemetryDeck's legacy keys (v1/v2 SDKs sent these unprefixed).
        "newSessionBegan", "platform", "systemVersion", "majorSystemVersion", "majorMinorSystemVersion",
        "appVersion", "buildNumber", "isSimulator", "isDebug", "isTestFlight", "isAppStore", "modelName",
        "architecture", "operatingSystem", "targetEnvironment", "locale", "region", "appLanguage",
        "preferredLanguage", "telemetryClientVersion", "extensionIdentifier",
    ]

    static let reservedNameMatcher = ReservedNameMatcher(names: reservedParameterNames)
}

/// Matches keys against a fixed list, ignoring ASCII case, without allocating: the hot path
/// checks every parameter key of every event.
///
/// Each name is packed, lowercased, into three words with its length (``Packed``), so
/// comparing a key with every name is a few integer comparisons per name rather than a loop
/// over its bytes.
struct ReservedNameMatcher: Sendable {
    /// The longest name the packing holds.
    static let maximumLength = 24

    /// A name's bytes, ASCII letters lowercased, in 24 bytes of three words, and its length.
    private struct Packed: Equatable {
        var bytes: (UInt64, UInt64, UInt64) = (0, 0, 0)
        var count = 0

        static func == (lhs: Packed, rhs: Packed) -> Bool {
            lhs.count == rhs.count && lhs.bytes.0 == rhs.bytes.0 && lhs.bytes.1 == rhs.bytes.1
                && lhs.bytes.2 == rhs.bytes.2
        }
    }

    private let names: [Packed]
    /// Bit `n` is set when some name is `n` bytes long: most keys are rejected by length alone.
    private let lengths: UInt64

    /// - Precondition: every name is at most ``maximumLength`` bytes of UTF-8.
    init(names: [String]) {
        self.names = names.map { name in
            guard let packed = Self.packed(name) else {
                preconditionFailure("reserved name '\(name)' is longer than \(Self.maximumLength) bytes")
            }
            return packed
        }
        var lengths: UInt64 = 0
        for name in names {
            lengths |= 1 << UInt64(name.utf8.count)
        }
        self.lengths = lengths
    }

    func matches(_ key: String) -> Bool {
        let count = key.utf8.count
        guard count <= Self.maximumLength, lengths & (1 << UInt64(count)) != 0, let packed = Self.packed(key) else {
            return false
        }
        return names.contains(packed)
    }

    /// `name` packed; nil when it is longer than ``maximumLength``.
    private static func packed(_ name: String) -> Packed? {
        let utf8 = name.utf8
        guard utf8.count <= maximumLength else { return nil }
        var packed = Packed(count: utf8.count)
        withUnsafeMutableBytes(of: &packed.bytes) { bytes in
            // A native string's bytes are contiguous (a small one's are copied to the stack);
            // others (bridged) are read one by one.
            let read: Void? = utf8.withContiguousStorageIfAvailable { source in
                for index in source.indices { bytes[index] = lowercased(source[index]) }
            }
            if read == nil {
                for (index, byte) in utf8.enumerated() { bytes[index] = lowercased(byte) }
            }
        }
        return packed
    }

    @inline(__always)
    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
