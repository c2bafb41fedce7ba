public import TelemetryKit
import TelemetryKitSupport

/// A logger for tests: keeps every message.
public final class RecordingLogger: Logging {
    /// One recorded message.
    public struct Entry: Sendable, Hashable {
        public var level: LogLevel
        public var message: String
        public var eventName: String?
    }

    private let storage = Locked([Entry]())

    public init() {}

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        let text = message()
        storage.withLock { $0.append(Entry(level: level, message: text, eventName: nil)) }
    }

    public func log(_ level: LogLevel, _ message: @autoclosure () -> String, eventName: String?) {
        let text = message()
        storage.withLock { $0.append(Entry(level: level, message: text, eventName: eventName)) }
    }

    /// Every message so far.
    public var entries: [Entry] { storage.withLock { $0 } }

    /// The messages at `level`.
    public func messages(at level: LogLevel) -> [String] {
        entries.filter { $0.level == level }.map(\.message)
    }

    /// Warnings and errors.
    public var warnings: [String] {
        entries.filter { $0.level >= .warning }.map(\.message)
    }
}
