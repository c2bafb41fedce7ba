public import TelemetryKit
import TelemetryKitSupport

/// Prefixes event names and custom parameter keys, e.g. `login` → `MyApp.login`.
///
/// Rules:
/// - names and keys in the SDK's namespace (``SDKInfo/isReserved(_:)``, `TelemetryDeck.*`)
///   are never prefixed;
/// - SDK-internal events (`skipsReservedPrefixValidation`) pass through untouched, name and keys;
/// - nothing is prefixed twice: a name that already starts with the event prefix, or a key
///   that already starts with the parameter prefix, is kept as is;
/// - an empty prefix is the same as `nil` (no prefixing).
///
/// If an event has both `key` and the already prefixed `<prefix>key`, the prefixed one wins
/// and the collision is logged as a warning.
///
/// Only the event's own parameters are prefixed; the metadata processors add to the context
/// is the SDK's and is left alone.
///
/// ```swift
/// let prefix = DefaultPrefixProcessor(eventPrefix: "MyApp.", parameterPrefix: "MyApp.")
/// // event("login", parameters: ["method": "email"]) → MyApp.login with MyApp.method = email
/// ```
public struct DefaultPrefixProcessor: SynchronousEventProcessor {
    /// The prefix for event names, or `nil`.
    public let eventPrefix: String?
    /// The prefix for custom parameter keys, or `nil`.
    public let parameterPrefix: String?
    /// Where key collisions are reported; replaced by the client's logger in `start`.
    private let logger = Locked<any Logging>(StandardErrorLogger())

    /// Creates the processor.
    ///
    /// - Parameters:
    ///   - eventPrefix: Put in front of every app event name; `nil` or empty leaves names alone.
    ///   - parameterPrefix: Put in front of every custom parameter key; `nil` or empty leaves keys alone.
    public init(eventPrefix: String? = nil, parameterPrefix: String? = nil) {
        self.eventPrefix = eventPrefix.flatMap { $0.isEmpty ? nil : $0 }
        self.parameterPrefix = parameterPrefix.flatMap { $0.isEmpty ? nil : $0 }
    }

    public func process(_ input: inout EventInput, context: inout EventContext) throws {
        if input.skipsReservedPrefixValidation { return }
        if let eventPrefix, needsPrefix(input.name, eventPrefix) {
            input.name = eventPrefix + input.name
        }
        if let parameterPrefix, input.parameters.keys.contains(where: { needsPrefix($0, parameterPrefix) }) {
            input.parameters = prefixKeys(of: input.parameters, with: parameterPrefix, eventName: input.name)
        }
    }

    public func start(storage: any ProcessorStorage, logger: any Logging, emitter: any EventSending) async {
        self.logger.set(logger)
    }

    /// The parameters with every app key prefixed.
    ///
    /// When both `key` and `prefix + key` are present, the key written with the prefix wins
    /// (it was spelled out in full) and the other value is dropped with a warning.
    private func prefixKeys(of parameters: EventParameters, with prefix: String, eventName: String) -> EventParameters {
        var prefixed = [String: PayloadValue](minimumCapacity: parameters.count)
        // Two passes instead of a side list: the keys kept as they are go in first, so that
        // the renamed ones can tell a collision without a per-event allocation.
        for (key, value) in parameters.values where !needsPrefix(key, prefix) {
            prefixed[key] = value
        }
        for (key, value) in parameters.values where needsPrefix(key, prefix) {
            let newKey = prefix + key
            if prefixed[newKey] == nil {
                prefixed[newKey] = value
            } else {
                logger.current.log(
                    .warning,
                    "parameter '\(key)' collides with '\(newKey)' once prefixed; kept the value of '\(newKey)'",
                    eventName: eventName
                )
            }
        }
        return EventParameters(prefixed)
    }

    /// Whether `name` is an app name that does not carry `prefix` yet.
    @inline(__always)
    private func needsPrefix(_ name: String, _ prefix: String) -> Bool {
        !SDKInfo.isReserved(name) && !name.hasPrefix(prefix)
    }
}
