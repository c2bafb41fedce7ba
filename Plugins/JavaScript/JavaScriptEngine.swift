#if canImport(JavaScriptCore)
import JavaScriptCore
#if canImport(Darwin)
import Darwin
#endif
#elseif canImport(CJavaScriptCore)
import CJavaScriptCore
#endif

/// What this platform's JavaScriptCore offers, set up once per process.
enum JavaScriptEngine {
    #if canImport(JavaScriptCore) || canImport(CJavaScriptCore)
    /// The callback that decides, when a script exceeds its time limit, whether to stop it.
    typealias ShouldTerminate = @convention(c) (JSContextRef?, UnsafeMutableRawPointer?) -> Bool

    /// Whether a runaway script is reliably stopped at its time limit; worked out (and the
    /// options set) when first read, which ``prepare()`` does before any context group exists.
    ///
    /// Linux: WebKitGTK interrupts a runaway script only once per VM with its default
    /// signal-based traps (a second `while(true){}` in the same context never stops), so the
    /// polling traps are switched on. That option must be set before the process's first VM
    /// exists; if something else in the process made one earlier, it may be too late.
    static let timeLimitIsReliable: Bool = {
        #if canImport(JavaScriptCore)
        return setExecutionTimeLimitFunction != nil
        #else
        let option = "usePollingTraps"
        var current: Int32 = 0
        if jsc_options_get_boolean(option, &current) != 0, current != 0 { return true }
        guard jsc_options_set_boolean(option, 1) != 0 else { return false }
        return jsc_options_get_boolean(option, &current) != 0 && current != 0
        #endif
    }()

    /// Sets up the process-wide options; returns whether time limits are enforced reliably.
    static func prepare() -> Bool {
        timeLimitIsReliable
    }

    /// Limits how long a script of `group` may run, in seconds; `callback` decides at the limit.
    ///
    /// - Returns: false when this JavaScriptCore does not offer a time limit.
    static func setExecutionTimeLimit(
        _ group: JSContextGroupRef,
        seconds: Double,
        callback: ShouldTerminate
    ) -> Bool {
        #if canImport(JavaScriptCore)
        // Apple ships the time limit as SPI (JSContextRefPrivate.h); the symbol is exported
        // by the framework, so it is looked up at run time instead of declared.
        guard let function = setExecutionTimeLimitFunction else { return false }
        function(group, seconds, callback, nil)
        return true
        #else
        JSContextGroupSetExecutionTimeLimit(group, seconds, callback, nil)
        return true
        #endif
    }

    #if canImport(JavaScriptCore)
    private typealias SetExecutionTimeLimit =
        @convention(c) (JSContextGroupRef?, Double, ShouldTerminate?, UnsafeMutableRawPointer?) -> Void

    private static let setExecutionTimeLimitFunction: SetExecutionTimeLimit? = {
        // RTLD_DEFAULT: search every image loaded in the process.
        let everyImage = UnsafeMutableRawPointer(bitPattern: -2)
        guard let symbol = dlsym(everyImage, "JSContextGroupSetExecutionTimeLimit") else { return nil }
        return unsafeBitCast(symbol, to: SetExecutionTimeLimit.self)
    }()
    #endif
    #endif
}
