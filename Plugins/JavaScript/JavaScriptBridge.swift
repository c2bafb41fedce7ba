#if canImport(JavaScriptCore) || canImport(CJavaScriptCore)
import TelemetryKit

#if canImport(JavaScriptCore)
import JavaScriptCore
#elseif canImport(CJavaScriptCore)
import CJavaScriptCore
#endif

/// What the native callbacks of a context (`console`, `drop()`, the time limit) reach: the
/// global object's private pointer leads here.
///
/// Its mutable state belongs to the run in progress: it is only touched by the thread running
/// the script, which holds the context's lock.
final class JavaScriptBridge {
    /// The transformation id, for log messages.
    let name: String
    let logger: any Logging
    /// The name of the event being transformed, for log messages.
    private(set) var eventName: String?
    /// Whether the script called `drop()` in this run.
    var dropped = false
    /// Whether the time limit stopped the script in this run.
    var timedOut = false

    init(name: String, logger: any Logging) {
        self.name = name
        self.logger = logger
    }

    func begin(eventName: String) {
        self.eventName = eventName
        dropped = false
        timedOut = false
    }

    func end() {
        eventName = nil
    }

    /// The bridge of the context a callback was called in.
    static func current(in context: JSContextRef?) -> JavaScriptBridge? {
        guard let context, let global = JSContextGetGlobalObject(context), let raw = JSObjectGetPrivate(global) else {
            return nil
        }
        return Unmanaged<JavaScriptBridge>.fromOpaque(raw).takeUnretainedValue()
    }

    /// `console.<method>(...)`: logs the arguments, separated by spaces, at `level`.
    static func console(
        _ level: LogLevel,
        _ context: JSContextRef?,
        _ count: Int,
        _ arguments: UnsafePointer<JSValueRef?>?
    ) -> JSValueRef? {
        guard let context, let bridge = current(in: context) else { return JSValueMakeUndefined(context) }
        var parts: [String] = []
        if let arguments {
            parts.reserveCapacity(count)
            for index in 0..<count {
                parts.append(JavaScriptValues.describe(arguments[index], in: context))
            }
        }
        let message = parts.joined(separator: " ")
        bridge.logger.log(
            level,
            "JavaScript transformation '\(bridge.name)': \(message)",
            eventName: bridge.eventName
        )
        return JSValueMakeUndefined(context)
    }
}
#endif
