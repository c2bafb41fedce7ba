extension ValidationProcessor {
    /// Parameter keys that collide with the fields of a finalized ``Event`` (compared
    /// ignoring ASCII case, as backends often fold column names).
    public static let reservedParameterNames: [String] = [
        "type",
        "appID",
        "clientUser",
        "sessionID",
        "receivedAt",
        "payload",
        "floatValue",
        "isTestMode",
        "id",
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
