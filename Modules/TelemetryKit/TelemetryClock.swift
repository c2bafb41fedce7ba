#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The source of time for the SDK: the current date and sleeping.
///
/// Injected everywhere time matters (dispatch timers, backoff, sessions, durations) so
/// tests drive time with `ManualClock` instead of sleeping.
public protocol TelemetryClock: Sendable {
    /// The current date.
    var now: Date { get }
    /// Suspends for `seconds`. Throws `CancellationError` when the task is cancelled.
    func sleep(for seconds: TimeInterval) async throws
}

/// Wall-clock time and real sleeping.
public struct SystemClock: TelemetryClock {
    public init() {}

    public var now: Date { Date() }

    public func sleep(for seconds: TimeInterval) async throws {
        guard seconds > 0 else {
            try Task.checkCancellation()
            return
        }
        try await Task.sleep(nanoseconds: UInt64(min(seconds, 1e9) * 1_000_000_000))
    }
}
