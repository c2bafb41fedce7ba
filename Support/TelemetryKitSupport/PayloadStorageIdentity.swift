package import TelemetryKit

/// The address of a payload dictionary's storage, which every copy of that dictionary shares.
///
/// Processors add the same precomputed metadata dictionary to every event, so events carry
/// copies of one storage. The finalizer (merging a context's dictionaries) and the encoders
/// (writing an event's shared layer) recognise a dictionary they have already handled by this
/// address instead of comparing ~50 entries; they keep the dictionary itself while they keep
/// its address, so the storage cannot be freed and reused for another.
package enum PayloadStorageIdentity {
    /// Whether a dictionary is one reference wide, as on every supported platform; where it is
    /// not, there is no identity and callers take their general path.
    @inlinable
    package static var isAvailable: Bool {
        MemoryLayout<[String: PayloadValue]>.size == MemoryLayout<UInt>.size
    }

    /// The storage address of `dictionary` (only meaningful when ``isAvailable``).
    @inlinable
    package static func of(_ dictionary: [String: PayloadValue]) -> UInt {
        withUnsafeBytes(of: dictionary) { $0.load(as: UInt.self) }
    }
}
