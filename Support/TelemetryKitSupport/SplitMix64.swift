/// A small deterministic random generator (SplitMix64), so a randomized test or the
/// collector's fault injection repeats exactly and a failing run can be replayed from its seed.
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) {
        state = seed
    }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform draw in `0..<1` from the top 53 bits of ``next()``: every value a `Double`
    /// holds exactly at that spacing, the same for a seed on every platform (the standard
    /// library's `Double.random(in:using:)` promises no particular mapping).
    package mutating func nextUnit() -> Double {
        Double(next() >> 11) * 0x1.0p-53
    }
}
