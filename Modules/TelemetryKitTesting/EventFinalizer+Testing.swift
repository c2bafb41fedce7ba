import TelemetryKit

extension EventFinalizer {
    /// A finalizer for pipelines under test: app id `TEST-APP`, salt `pepper`, silent.
    ///
    /// The fixed app id and salt make `clientUser` a known hash in expectations; the silent
    /// logger keeps a test's output to the test's own messages.
    ///
    /// ```swift
    /// let pipeline = ProcessorPipeline(processors: [processor], finalizer: .test)
    /// ```
    public static let test = EventFinalizer(appID: "TEST-APP", salt: "pepper", logger: SilentLogger())
}
