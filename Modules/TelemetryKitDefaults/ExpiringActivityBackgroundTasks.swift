import TelemetryKitSupport

#if canImport(Darwin)
import Foundation
#endif
#if canImport(Dispatch)
import Dispatch
#endif

/// Running time for app extensions and watchOS apps, where UIKit's background tasks do not
/// exist: the system's expiring activity (`ProcessInfo.performExpiringActivity`).
///
/// Why: a share extension or a watch app is suspended as soon as it leaves the screen, often
/// in the middle of the request that sends its queue. An expiring activity keeps the process
/// running while the client saves and sends; when the system takes the time back, the client
/// cancels the send (the events stay queued) and the activity ends. `Telemetry.initialize`
/// installs it in app extensions and on watchOS.
///
/// The system calls the activity's block on a thread of its own with `false` to begin (the
/// activity lasts while the block runs, so the block waits there until the work ends), and
/// with `true` when the time runs out (or at once, when no time can be had). The performer is
/// injectable so that this hand-over is tested where `ProcessInfo` has no such activity.
public struct ExpiringActivityBackgroundTasks: BackgroundTaskProviding {
    /// Runs `block` as an expiring activity named `reason` (see above).
    public typealias Performer =
        @Sendable (
            _ reason: String,
            _ block: @escaping @Sendable (_ expired: Bool) -> Void
        ) -> Void

    private let perform: Performer

    #if canImport(Darwin)
    /// The system's expiring activities.
    public init() {
        self.init { reason, block in
            ProcessInfo.processInfo.performExpiringActivity(withReason: reason, using: block)
        }
    }
    #endif

    /// Activities run by `perform` (a test's stand-in for the system).
    public init(perform: @escaping Performer) {
        self.perform = perform
    }

    public func beginBackgroundTask(
        named name: String,
        onExpiration: @escaping @Sendable () -> Void
    ) -> @Sendable () -> Void {
        let activity = Activity()
        perform(name) { expired in
            if expired {
                activity.expire(onExpiration)
            } else {
                activity.holdUntilEnded()
            }
        }
        return { activity.end() }
    }
}

/// One expiring activity: its block waits until the work ends or the time runs out, and the
/// work hears of an expiry at most once, and never after it ended.
private final class Activity: Sendable {
    private struct State {
        var ended = false
        var expired = false
    }

    private let state = Locked(State())
    private let released = DispatchSemaphore(value: 0)

    /// Called on the system's thread: the activity lasts while this waits.
    func holdUntilEnded() {
        released.wait()
    }

    /// The work is done: the activity may end.
    func end() {
        let first = state.withLock { state -> Bool in
            defer { state.ended = true }
            return !state.ended && !state.expired
        }
        if first { released.signal() }
    }

    /// The time runs out: the work is told (it ends the task from inside `onExpiration`, as
    /// `BackgroundTaskProviding` asks), and the block waiting in ``holdUntilEnded()`` returns.
    func expire(_ onExpiration: @Sendable () -> Void) {
        let tell = state.withLock { state -> Bool in
            defer { state.expired = true }
            return !state.ended && !state.expired
        }
        guard tell else { return }
        onExpiration()
        released.signal()
    }
}
