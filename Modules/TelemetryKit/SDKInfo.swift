/// Facts about this SDK that plugins share.
public enum SDKInfo {
    /// The SDK's name, sent as `TelemetryDeck.SDK.name`.
    public static let name = "TelemetryKit"
    /// The SDK's version, sent as `TelemetryDeck.SDK.version`.
    public static let version = "1.0.0"
    /// The namespace of SDK-defined event names and parameter keys. Dashboards built for
    /// the TelemetryDeck ingest API read these names, so they are kept as is.
    public static let reservedPrefix = "TelemetryDeck."

    /// Whether `name` (an event name or parameter key) belongs to the SDK's namespace.
    @inlinable
    public static func isReserved(_ name: String) -> Bool {
        name.hasPrefix("TelemetryDeck.")
    }
}
