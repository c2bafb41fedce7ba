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
struct ReservedNameMatcher: Sendable {
    /// The names as lowercase UTF-8 bytes.
    private let names: [[UInt8]]
    /// Bit `n` is set when some name is `n` bytes long: most keys are rejected by length alone.
    private let lengths: UInt64

    init(names: [String]) {
        self.names = names.map { Array($0.lowercased().utf8) }
        var lengths: UInt64 = 0
        for name in self.names where name.count < 64 {
            lengths |= 1 << UInt64(name.count)
        }
        self.lengths = lengths
    }

    func matches(_ key: String) -> Bool {
        let utf8 = key.utf8
        let count = utf8.count
        guard count < 64, lengths & (1 << UInt64(count)) != 0 else { return false }
        for name in names where name.count == count {
            var equal = true
            for (expected, byte) in zip(name, utf8) where expected != Self.lowercased(byte) {
                equal = false
                break
            }
            if equal { return true }
        }
        return false
    }

    @inline(__always)
    private static func lowercased(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
    }
}
