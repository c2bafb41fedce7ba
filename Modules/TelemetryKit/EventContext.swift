#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Metadata that accumulates while an event moves through the processors.
///
/// Parameters added here are merged into the payload at finalization; the event's own
/// input parameters win on collisions.
///
/// Adding is cheap: the context records fragments (single values or whole precomputed
/// dictionaries) and merges them once, at finalization, so a processor that adds a
/// constant dictionary of device facts costs one array append per event, not one
/// dictionary copy per processor.
public struct EventContext: Sendable {
    /// The current session, set by session tracking.
    public var sessionID: UUID?
    /// The raw (unhashed) user identifier; the finalizer hashes it with the salt.
    public var userIdentifier: String?
    /// Whether the event is test data. `nil` means "not decided" (treated as `false`).
    public var isTestMode: Bool?

    @usableFromInline
    package enum Fragment: Sendable {
        case value(String, PayloadValue)
        case values([String: PayloadValue])
        case removal(String)
        /// The value of the `.value` before it as given, when that is not a payload-native
        /// type; read by `metadata` only, never by the finalizer. Boxed, so that this rare
        /// case does not widen every fragment (the finalizer walks them per event).
        case original(OriginalValue)
    }

    /// A metadata value as it was given, with its key.
    @usableFromInline
    package final class OriginalValue: Sendable {
        @usableFromInline package let key: String
        @usableFromInline package let value: any ParameterValue

        @usableFromInline
        package init(key: String, value: any ParameterValue) {
            self.key = key
            self.value = value
        }
    }

    @usableFromInline
    package var fragments: [Fragment]

    /// Creates an empty context.
    @inlinable
    public init(sessionID: UUID? = nil, userIdentifier: String? = nil, isTestMode: Bool? = nil) {
        self.sessionID = sessionID
        self.userIdentifier = userIdentifier
        self.isTestMode = isTestMode
        self.fragments = []
    }

    /// Adds (or replaces) one metadata parameter.
    @inlinable
    public mutating func addParameter(_ key: String, value: some ParameterValue) {
        fragments.append(.value(key, value.payloadValue))
        if !EventParameters.isPayloadNative(type(of: value)) {
            fragments.append(.original(OriginalValue(key: key, value: value)))
        }
    }

    /// Adds (or replaces) one metadata parameter under a key spelled as a `String` enum case.
    @inlinable
    public mutating func addParameter<Key: RawRepresentable>(_ key: Key, value: any ParameterValue)
    where Key.RawValue == String {
        fragments.append(.value(key.rawValue, value.payloadValue))
        if !EventParameters.isPayloadNative(type(of: value)) {
            fragments.append(.original(OriginalValue(key: key.rawValue, value: value)))
        }
    }

    /// Adds (or replaces) several string parameters at once (v3's `[String: String]` form).
    @inlinable
    public mutating func addParameters(_ parameters: [String: String]) {
        addParameters(EventParameters(parameters))
    }

    /// Adds (or replaces) several metadata parameters at once. Prefer this with a dictionary
    /// computed once (in `init` or `start`) over many single `addParameter` calls.
    @inlinable
    public mutating func addParameters(_ parameters: EventParameters) {
        guard !parameters.isEmpty else { return }
        fragments.append(.values(parameters.values))
        for (key, value) in parameters.originals {
            fragments.append(.original(OriginalValue(key: key, value: value)))
        }
    }

    /// Adds (or replaces) several metadata parameters at once.
    @inlinable
    @_disfavoredOverload
    public mutating func addParameters(_ parameters: [String: PayloadValue]) {
        guard !parameters.isEmpty else { return }
        fragments.append(.values(parameters))
    }

    /// Removes a metadata parameter added by an earlier processor.
    @inlinable
    public mutating func removeParameter(_ key: String) {
        fragments.append(.removal(key))
    }

    /// The metadata accumulated so far (later additions win), read as v3 reads it:
    /// `context.metadata["TelemetryDeck.Device.platform"] as? String`.
    public var metadata: EventParameters {
        var result = EventParameters()
        apply(to: &result.values)
        for case .original(let original) in fragments {
            result.originals[original.key] = original.value
        }
        return result
    }

    /// Writes the metadata into `payload` in the order it was added.
    package func apply(to payload: inout [String: PayloadValue]) {
        for fragment in fragments {
            switch fragment {
            case .value(let key, let value): payload[key] = value
            case .values(let values):
                for (key, value) in values { payload[key] = value }
            case .removal(let key): payload.removeValue(forKey: key)
            case .original: continue
            }
        }
    }
}
