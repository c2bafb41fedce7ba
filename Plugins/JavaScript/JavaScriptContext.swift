public import TelemetryKit
import TelemetryKitSupport

#if canImport(JavaScriptCore)
import JavaScriptCore
#elseif canImport(CJavaScriptCore)
import CJavaScriptCore
#endif

/// One compiled transformation script and the JavaScriptCore context it runs in.
///
/// The script is compiled once, as the body of a function, and called once per event. It sees:
/// - `payload`: the event's payload as a plain object of strings, numbers and booleans, plus
///   `event_name` (the event's name). Change, add or `delete` keys, or assign a new object.
/// - `scope`: `"afterprocessors"`, or the id of the destination the event is about to be sent to.
/// - `drop()`: drops the event (for this scope only).
/// - `console.log`, `.info`, `.debug`, `.warn`, `.error`: routed to the SDK's ``Logging``.
///
/// What the script leaves in `payload` becomes the event's payload:
/// - a number stays an integer when it was one and is still integral; a double stays a double;
///   a new integral number (within ±2^53) becomes an integer, any other number a double;
/// - `null` or `undefined` removes the key;
/// - a string in `event_name` renames the event; deleting `event_name` keeps the name.
///
/// A script that throws, runs past its time limit, or leaves `payload` as something other than
/// an object of strings, numbers and booleans changes nothing: ``run(_:destination:)`` returns
/// ``Outcome/failed(_:)`` and the event passes unchanged. Globals persist between runs, so a
/// script can keep state in `globalThis`; the script's return value is ignored.
///
/// ```swift
/// let context = try JavaScriptContext(code: "payload.total = payload.price * payload.qty")
/// if case .transformed(let event) = context.run(event, destination: nil) { … }
/// ```
///
/// Runs are serialized: one script runs at a time per context, so a caller may wait for at
/// most one time limit. Not available on watchOS (the initializer throws `.unavailable`).
public final class JavaScriptContext: @unchecked Sendable {
    // Safe: every JavaScriptCore reference below is set once in init and only used inside
    // `lock` (run) or in deinit (when no other reference exists); the bridge's mutable flags
    // are only touched by the thread that holds `lock`, from native callbacks it triggered.

    /// What a run did to an event.
    public enum Outcome: Sendable, Hashable {
        /// The event as the script left it (possibly unchanged).
        case transformed(Event)
        /// The script called `drop()`.
        case dropped
        /// The script failed; the event should pass unchanged.
        case failed(JavaScriptFailure)
    }

    /// How long a run may take when no limit is given: 50 ms.
    public static let defaultTimeLimit: Duration = .milliseconds(50)

    /// The value of `scope` for transformations after the processors.
    public static let afterProcessorsScope = "afterprocessors"

    /// The name used in log messages and JavaScript stack traces (the transformation id).
    public let name: String
    /// How long one run may take.
    public let timeLimit: Duration

    #if canImport(JavaScriptCore) || canImport(CJavaScriptCore)
    private let group: JSContextGroupRef
    private let context: JSGlobalContextRef
    private let global: JSObjectRef
    private let function: JSObjectRef
    private let bridge: JavaScriptBridge
    private let names: PropertyNames
    /// How many lines JavaScriptCore puts before a function body; subtracted from error lines.
    private let lineOffset: Int
    private let lock = Locked(())
    #endif

    /// Compiles `code` in a new context.
    ///
    /// - Parameters:
    ///   - code: the script: the body of a function run once per event.
    ///   - name: the transformation id, for log messages.
    ///   - timeLimit: how long one run may take before it is stopped.
    ///   - logger: receives `console` output and the engine's warnings.
    /// - Throws: ``JavaScriptFailure`` `.syntaxError` with the JavaScript message, or
    ///   `.unavailable` where JavaScriptCore does not exist.
    public init(
        code: String,
        name: String = "script",
        timeLimit: Duration = JavaScriptContext.defaultTimeLimit,
        logger: any Logging = StandardErrorLogger()
    ) throws(JavaScriptFailure) {
        self.name = name
        self.timeLimit = timeLimit > .zero ? timeLimit : Self.defaultTimeLimit
        #if canImport(JavaScriptCore) || canImport(CJavaScriptCore)
        let reliable = JavaScriptEngine.prepare()
        let bridge = JavaScriptBridge(name: name, logger: logger)
        guard let group = JSContextGroupCreate() else {
            throw JavaScriptFailure(.unavailable, "JavaScriptCore could not create a context group")
        }
        let limited = JavaScriptEngine.setExecutionTimeLimit(
            group,
            seconds: Self.seconds(self.timeLimit),
            callback: { context, _ in
                JavaScriptBridge.current(in: context)?.timedOut = true
                return true
            }
        )
        if !limited || !reliable {
            logger.log(
                .warning,
                "JavaScript transformation '\(name)': this JavaScriptCore cannot reliably stop a script at its time "
                    + "limit; a script that never returns would block its events"
            )
        }
        var globalClassDefinition = kJSClassDefinitionEmpty
        let globalClass = JSClassCreate(&globalClassDefinition)
        defer { JSClassRelease(globalClass) }
        guard let context = JSGlobalContextCreateInGroup(group, globalClass),
            let global = JSContextGetGlobalObject(context)
        else {
            JSContextGroupRelease(group)
            throw JavaScriptFailure(.unavailable, "JavaScriptCore could not create a context")
        }
        // The global object holds an unretained pointer to the bridge; `self` keeps the bridge
        // alive for as long as the context can call back.
        _ = JSObjectSetPrivate(global, Unmanaged.passUnretained(bridge).toOpaque())
        let names = PropertyNames()
        Self.installGlobals(in: context, global: global)

        let lineOffset = Self.functionBodyLineOffset(in: context)
        let body = JavaScriptString(code)
        let sourceURL = JavaScriptString(name)
        var exception: JSValueRef?
        let function = JSObjectMakeFunction(context, nil, 0, nil, body.ref, sourceURL.ref, 1, &exception)
        guard let function, exception == nil else {
            let message =
                exception.map {
                    JavaScriptValues.errorMessage(
                        $0,
                        in: context,
                        lineOffset: lineOffset,
                        lastLine: code.utf8.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
                    )
                } ?? "the script does not compile"
            JSGlobalContextRelease(context)
            JSContextGroupRelease(group)
            throw JavaScriptFailure(.syntaxError, message)
        }
        JSValueProtect(context, function)

        self.group = group
        self.context = context
        self.global = global
        self.function = function
        self.bridge = bridge
        self.names = names
        self.lineOffset = lineOffset
        #else
        throw JavaScriptFailure(.unavailable, "JavaScriptCore is not available on this platform")
        #endif
    }

    #if canImport(JavaScriptCore) || canImport(CJavaScriptCore)
    deinit {
        JSValueUnprotect(context, function)
        _ = JSObjectSetPrivate(global, nil)
        JSGlobalContextRelease(context)
        JSContextGroupRelease(group)
    }
    #endif

    /// Runs the script against `event`.
    ///
    /// - Parameter destination: the destination the event is about to be sent to, or nil after
    ///   the processors (`scope` is then `"afterprocessors"`).
    public func run(_ event: Event, destination: String?) -> Outcome {
        #if canImport(JavaScriptCore) || canImport(CJavaScriptCore)
        return lock.withLock { _ in runLocked(event, scope: destination ?? Self.afterProcessorsScope) }
        #else
        return .failed(JavaScriptFailure(.unavailable, "JavaScriptCore is not available on this platform"))
        #endif
    }

    static func seconds(_ duration: Duration) -> Double {
        let components = duration.components
        return Double(components.seconds) + Double(components.attoseconds) / 1e18
    }

    static func milliseconds(_ duration: Duration) -> String {
        let milliseconds = seconds(duration) * 1000
        return milliseconds == milliseconds.rounded() ? String(Int64(milliseconds)) : String(milliseconds)
    }
}

#if canImport(JavaScriptCore) || canImport(CJavaScriptCore)
extension JavaScriptContext {
    private func runLocked(_ event: Event, scope: String) -> Outcome {
        bridge.begin(eventName: event.type)
        defer { bridge.end() }

        var exception: JSValueRef?
        let scopeString = JavaScriptString(scope)
        guard let input = JavaScriptValues.makePayload(event, in: context, names: names),
            let scopeValue = JSValueMakeString(context, scopeString.ref)
        else {
            return .failed(JavaScriptFailure(.exception, "JavaScriptCore could not allocate the payload"))
        }
        if let failure = setGlobal(names.payload.ref, input.object) ?? setGlobal(names.scope.ref, scopeValue) {
            return .failed(failure)
        }

        _ = JSObjectCallAsFunction(context, function, nil, 0, nil, &exception)
        if let failure = failure(exception) { return .failed(failure) }
        if bridge.dropped { return .dropped }

        let result = JavaScriptValues.readPayload(
            JSObjectGetProperty(context, global, names.payload.ref, &exception),
            original: event,
            input: input,
            in: context,
            names: names,
            lineOffset: lineOffset
        )
        // Reading the payload can run script code too (getters, proxies).
        if let failure = failure(exception) { return .failed(failure) }
        switch result {
        case .success(let transformed): return .transformed(transformed)
        case .failure(let failure): return .failed(bridge.timedOut ? timeoutFailure() : failure)
        }
    }

    /// Sets a global for the script, or says why it cannot be set.
    private func setGlobal(_ name: JSStringRef?, _ value: JSValueRef) -> JavaScriptFailure? {
        var exception: JSValueRef?
        JSObjectSetProperty(context, global, name, value, JSPropertyAttributes(kJSPropertyAttributeNone), &exception)
        if let failure = failure(exception) { return failure }
        // An earlier run may have made the global read-only or an accessor; the script must
        // never see the previous event's payload.
        let stored = JSObjectGetProperty(context, global, name, &exception)
        if let failure = failure(exception) { return failure }
        guard JSValueIsStrictEqual(context, stored, value) else {
            return JavaScriptFailure(
                .invalidPayload,
                "`\(JavaScriptValues.string(name))` can no longer be set: an earlier run redefined it"
            )
        }
        return nil
    }

    /// The failure a finished call ended in, if any.
    private func failure(_ exception: JSValueRef?) -> JavaScriptFailure? {
        if bridge.timedOut { return timeoutFailure() }
        guard let exception else { return nil }
        return JavaScriptFailure(
            .exception,
            JavaScriptValues.errorMessage(exception, in: context, lineOffset: lineOffset)
        )
    }

    private func timeoutFailure() -> JavaScriptFailure {
        JavaScriptFailure(.timeout, "the script ran longer than \(Self.milliseconds(timeLimit)) ms and was stopped")
    }

    /// The lines JavaScriptCore adds before a function body (`function anonymous(\n) {\n`), so
    /// that error messages give the line in the script as written.
    private static func functionBodyLineOffset(in context: JSGlobalContextRef) -> Int {
        let probe = JavaScriptString("throw new Error()")
        guard let function = JSObjectMakeFunction(context, nil, 0, nil, probe.ref, nil, 1, nil) else { return 0 }
        var exception: JSValueRef?
        _ = JSObjectCallAsFunction(context, function, nil, 0, nil, &exception)
        guard let exception, let line = JavaScriptValues.line(of: exception, in: context) else { return 0 }
        return max(0, line - 1)
    }

    /// Defines `console` and `drop` on the global object.
    private static func installGlobals(in context: JSGlobalContextRef, global: JSObjectRef) {
        let attributes = JSPropertyAttributes(kJSPropertyAttributeDontEnum)
        let drop = JavaScriptString("drop")
        JSObjectSetProperty(
            context,
            global,
            drop.ref,
            JSObjectMakeFunctionWithCallback(context, drop.ref) { context, _, _, _, _, _ in
                JavaScriptBridge.current(in: context)?.dropped = true
                return JSValueMakeUndefined(context)
            },
            attributes,
            nil
        )

        guard let console = JSObjectMake(context, nil, nil) else { return }
        let methods: [(String, JSObjectCallAsFunctionCallback)] = [
            (
                "log",
                { context, _, _, count, arguments, _ in JavaScriptBridge.console(.info, context, count, arguments) }
            ),
            (
                "info",
                { context, _, _, count, arguments, _ in JavaScriptBridge.console(.info, context, count, arguments) }
            ),
            (
                "debug",
                { context, _, _, count, arguments, _ in JavaScriptBridge.console(.debug, context, count, arguments) }
            ),
            (
                "warn",
                { context, _, _, count, arguments, _ in JavaScriptBridge.console(.warning, context, count, arguments) }
            ),
            (
                "error",
                { context, _, _, count, arguments, _ in JavaScriptBridge.console(.error, context, count, arguments) }
            ),
        ]
        for (method, callback) in methods {
            let methodName = JavaScriptString(method)
            JSObjectSetProperty(
                context,
                console,
                methodName.ref,
                JSObjectMakeFunctionWithCallback(context, methodName.ref, callback),
                attributes,
                nil
            )
        }
        let consoleName = JavaScriptString("console")
        JSObjectSetProperty(context, global, consoleName.ref, console, attributes, nil)
    }
}
#endif
