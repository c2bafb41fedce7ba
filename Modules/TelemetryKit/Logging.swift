/// Severity of an SDK diagnostic.
///
/// The three levels of TelemetryDeck v3, so a v3 `Logging` implementation that switches over
/// them compiles unchanged. ``warning`` names the level the SDK uses for problems it recovers
/// from (a dropped event, a retry); it is reported as `.error`, so a logger that shows errors
/// never hides them.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    case debug = 0, info = 1, error = 2

    /// A recovered problem; the same level as ``error``.
    public static var warning: LogLevel { .error }

    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String {
        switch self {
        case .debug: return "debug"
        case .info: return "info"
        case .error: return "error"
        }
    }
}

/// Where the SDK reports its diagnostics.
///
/// ## Implementation requirements
/// - Cheap and non-blocking: it is called from the event path. Evaluate `message` only when
///   the level is enabled.
/// - Implement `log(_:_:eventName:)` as well to receive the name of the event a message is
///   about (the default forwards to `log(_:_:)` without it).
public protocol Logging: Sendable {
    func log(_ level: LogLevel, _ message: @autoclosure () -> String)
    /// Logs a message about a specific event.
    func log(_ level: LogLevel, _ message: @autoclosure () -> String, eventName: String?)
}

extension Logging {
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String, eventName: String?) {
        if let eventName {
            log(level, "\(message()) [event: \(eventName)]")
        } else {
            log(level, message())
        }
    }

    public func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
    public func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    public func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    public func error(_ message: @autoclosure () -> String) { log(.error, message()) }
}

/// The default logger: writes messages at or above `minimumLevel` to standard error.
public struct StandardErrorLogger: Logging {
    public var minimumLevel: LogLevel

    public init(minimumLevel: LogLevel = .warning) {
        self.minimumLevel = minimumLevel
    }

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        guard level >= minimumLevel else { return }
        DescriptorOutput.write("[TelemetryKit] \(level): \(message())\n", to: DescriptorOutput.standardError)
    }
}

/// A logger that discards everything.
public struct SilentLogger: Logging {
    public init() {}
    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {}
}
