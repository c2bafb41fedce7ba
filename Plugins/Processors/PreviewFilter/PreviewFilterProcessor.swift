public import TelemetryKit
import TelemetryKitSupport

/// Drops every event while Xcode renders SwiftUI previews, so preview noise never reaches a dashboard.
///
/// Xcode sets `XCODE_RUNNING_FOR_PREVIEWS=1` in the environment of a preview process. The
/// environment is read once, in `init`; the per-event cost is one boolean check.
///
/// ```swift
/// let filter = PreviewFilterProcessor()  // reads the process environment
/// let forTests = PreviewFilterProcessor(environment: ["XCODE_RUNNING_FOR_PREVIEWS": "1"])
/// ```
public struct PreviewFilterProcessor: SynchronousEventProcessor {
    /// The environment variable Xcode sets while rendering previews.
    public static let environmentKey = "XCODE_RUNNING_FOR_PREVIEWS"

    /// Whether events are dropped: `true` when the environment had `XCODE_RUNNING_FOR_PREVIEWS=1`.
    public let isRunningForPreviews: Bool

    /// Creates the filter.
    ///
    /// - Parameter environment: The environment to inspect; `nil` (the default) reads the
    ///   process environment. Inject a dictionary in tests.
    public init(environment: [String: String]? = nil) {
        let value = environment.map { $0[Self.environmentKey] } ?? ProcessEnvironment.value(of: Self.environmentKey)
        isRunningForPreviews = value == "1"
    }

    public func process(_ input: inout EventInput, context: inout EventContext) throws {
        if isRunningForPreviews {
            throw ProcessorError.eventFiltered
        }
    }
}
