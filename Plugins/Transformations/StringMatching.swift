/// String tests for conditions, with a byte-level fast path for ASCII.
///
/// Swift's `lowercased()`, `contains(_:)` and friends are Unicode-correct but cost an
/// allocation or a generic search per call. Payload values and filters are nearly always
/// ASCII, where byte comparison (with ASCII case folding) gives the same answers; other
/// strings take the Unicode path. Carriage returns are excluded from the fast path because
/// `"\r\n"` is a single `Character` for the Unicode path.
enum StringMatching {
    enum Kind: Sendable {
        case equals, contains, prefix, suffix
    }

    /// A filter prepared once: lowercased when matching ignores case.
    struct Pattern: Sendable {
        let kind: Kind
        let ignoreCase: Bool
        /// The filter (lowercased when `ignoreCase`), native UTF-8; a short one is stored
        /// inline rather than behind a pointer.
        let string: String
        /// Whether the filter qualifies for the byte-level fast path.
        let isFastPathEligible: Bool

        /// The pattern of tests that match no text (it matches only the empty string).
        static let none = Pattern(kind: .equals, filter: "", ignoreCase: false)

        init(kind: Kind, filter: String, ignoreCase: Bool) {
            self.kind = kind
            self.ignoreCase = ignoreCase
            var string = ignoreCase ? filter.lowercased() : filter
            string.makeContiguousUTF8()
            self.string = string
            isFastPathEligible = StringMatching.isFastPathEligible(string.utf8)
        }

        func matches(_ value: String) -> Bool {
            if isFastPathEligible {
                var value = value
                var pattern = string
                let result = value.withUTF8 { bytes -> Bool? in
                    guard StringMatching.isFastPathEligible(bytes) else { return nil }
                    return pattern.withUTF8 { pattern in
                        StringMatching.matches(kind, bytes, pattern, ignoreCase: ignoreCase)
                    }
                }
                if let result { return result }
            }
            let subject = ignoreCase ? value.lowercased() : value
            switch kind {
            case .equals: return subject == string
            case .contains: return subject.contains(string)
            case .prefix: return subject.hasPrefix(string)
            case .suffix: return subject.hasSuffix(string)
            }
        }
    }

    static func isFastPathEligible(_ bytes: some Sequence<UInt8>) -> Bool {
        for byte in bytes where byte >= 0x80 || byte == UInt8(ascii: "\r") { return false }
        return true
    }

    @inline(__always)
    static func fold(_ byte: UInt8, _ ignoreCase: Bool) -> UInt8 {
        ignoreCase && byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
    }

    static func matches(
        _ kind: Kind,
        _ value: UnsafeBufferPointer<UInt8>,
        _ pattern: UnsafeBufferPointer<UInt8>,
        ignoreCase: Bool
    ) -> Bool {
        switch kind {
        case .equals:
            return value.count == pattern.count && equal(value, from: 0, pattern, ignoreCase)
        case .prefix:
            return value.count >= pattern.count && equal(value, from: 0, pattern, ignoreCase)
        case .suffix:
            return value.count >= pattern.count && equal(value, from: value.count - pattern.count, pattern, ignoreCase)
        case .contains:
            guard value.count >= pattern.count else { return false }
            for start in 0...(value.count - pattern.count) where equal(value, from: start, pattern, ignoreCase) {
                return true
            }
            return false
        }
    }

    /// Whether `value[start ..< start + pattern.count]` equals `pattern` (value bytes folded).
    @inline(__always)
    static func equal(
        _ value: UnsafeBufferPointer<UInt8>,
        from start: Int,
        _ pattern: UnsafeBufferPointer<UInt8>,
        _ ignoreCase: Bool
    ) -> Bool {
        for index in 0..<pattern.count where fold(value[start + index], ignoreCase) != pattern[index] {
            return false
        }
        return true
    }
}
