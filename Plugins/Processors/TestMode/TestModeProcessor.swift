public import TelemetryKit

/// Marks events as test data: the configured override, else on in DEBUG builds.
///
/// `DEBUG` is the compilation condition of this module, which SwiftPM and Xcode build in
/// the same configuration as the app that links it.
///
/// ```swift
/// TestModeProcessor()                 // true in debug builds, false in release builds
/// TestModeProcessor(override: false)  // never test data, e.g. for a staging build in debug
/// ```
public struct TestModeProcessor: TestModeProviding, SynchronousEventProcessor {
    /// The value every event gets as `EventContext.isTestMode`.
    public let isTestMode: Bool

    /// Whether this module was compiled with `DEBUG`: the default when no override is given.
    public static var isDebugBuild: Bool {
        #if DEBUG
        return true
        #else
        return false
        #endif
    }

    /// Creates the processor.
    ///
    /// - Parameter override: `true` or `false` to force the flag; `nil` (the default) uses
    ///   ``isDebugBuild``.
    public init(override: Bool? = nil) {
        isTestMode = override ?? Self.isDebugBuild
    }

    public func isTestMode() async -> Bool { isTestMode }

    public func process(_ input: inout EventInput, context: inout EventContext) throws {
        context.isTestMode = isTestMode
    }
}
