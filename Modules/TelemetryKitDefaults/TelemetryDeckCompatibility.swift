/// TelemetryDeck v3's name for the logger that writes to standard error.
///
/// v3 code that builds `DefaultLogger(minimumLevel: .info)` compiles unchanged.
public typealias DefaultLogger = StandardErrorLogger

extension EventFinalizer {
    /// A finalizer with the app id and salt of `configuration` (TelemetryDeck v3's initializer).
    public init(configuration: Telemetry.Config) {
        self.init(appID: configuration.appID, salt: configuration.salt)
    }
}
