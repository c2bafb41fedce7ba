#if SwiftLog
public import Logging
public import TelemetryKit

/// Routes TelemetryKit's diagnostics into swift-log, so they show up in the app's own logging
/// backend.
///
/// Levels map one to one (debug, info, warning, error); the name of the event a message is
/// about goes into the metadata under ``eventNameMetadataKey``. Messages are built only when
/// the `Logger`'s level lets them through.
///
/// ```swift
/// let client = TelemetryClient(
///     configuration: .init(appID: "APP-ID"),
///     destinations: [destination],
///     storage: storage,
///     logger: SwiftLogLogger(Logger(label: "com.example.telemetry"))
/// )
/// ```
public struct SwiftLogLogger: TelemetryKit.Logging {
    /// The metadata key of the event name in messages about a specific event.
    public static let eventNameMetadataKey = "telemetry.event"

    /// The swift-log logger that receives the messages.
    public var logger: Logger

    /// Creates a bridge to `logger`.
    public init(_ logger: Logger) {
        self.logger = logger
    }

    /// Creates a bridge to a new `Logger` with `label` (from the bootstrapped backend).
    public init(label: String = "TelemetryKit") {
        self.logger = Logger(label: label)
    }

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        logger.log(level: Self.level(level), "\(message())")
    }

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String, eventName: String?) {
        guard let eventName else {
            logger.log(level: Self.level(level), "\(message())")
            return
        }
        logger.log(
            level: Self.level(level),
            "\(message())",
            metadata: [Self.eventNameMetadataKey: .string(eventName)]
        )
    }

    /// The swift-log level of a TelemetryKit level.
    public static func level(_ level: LogLevel) -> Logger.Level {
        switch level {
        case .debug: return .debug
        case .info: return .info
        case .error: return .error
        }
    }
}
#endif
