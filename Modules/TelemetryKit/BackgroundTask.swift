/// Extra running time that a platform grants an app which has just gone to the background.
///
/// Why: on `.didEnterBackground` the client saves its processors' state and sends its queue,
/// but iOS suspends a backgrounded app within seconds, usually in the middle of that HTTP
/// request. Inside a background task the app keeps running (about 30 s) until the work is
/// done; when the time runs out first, the client cancels the send (the events stay in the
/// durable cache for the next launch) and ends the task at once, as the system demands of an
/// app that does not want to be killed.
///
/// `TelemetryKitDefaults` provides UIKit's background tasks on iOS, tvOS and visionOS and
/// `Telemetry.initialize` installs them. A client built by hand sets
/// ``AppLifecycle/backgroundTasks``; servers and CLIs need none.
///
/// ```swift
/// struct RecordingBackgroundTasks: BackgroundTaskProviding {
///     func beginBackgroundTask(
///         named name: String,
///         onExpiration: @escaping @Sendable () -> Void
///     ) -> @Sendable () -> Void {
///         print("begin \(name)")
///         return { print("end \(name)") }
///     }
/// }
/// client.lifecycle.backgroundTasks = RecordingBackgroundTasks()
/// ```
///
/// ## Implementation requirements
/// - Return the closure that ends the task; the client calls it exactly once.
/// - Call `onExpiration` at most once, when the granted time is about to run out. The client
///   ends the task from inside it, before it returns.
/// - Where no task can be had (an app extension, a call off the main thread where the
///   platform needs it), return a closure that does nothing: the work still runs.
public protocol BackgroundTaskProviding: Sendable {
    /// Asks for running time for the work named `name`; returns the closure that ends it.
    func beginBackgroundTask(named name: String, onExpiration: @escaping @Sendable () -> Void) -> @Sendable () -> Void
}

extension AppLifecycle {
    /// Runs `work` on a new task, inside a background task of ``backgroundTasks`` when there
    /// is one: begun before `work` starts, ended once `work` returns, or, when the granted
    /// time runs out first, `work` is cancelled and the background task ended right away.
    ///
    /// - Parameters:
    ///   - name: names the background task (the system shows it in diagnostics).
    ///   - work: the work to finish before the app is suspended; it should stop soon when
    ///     cancelled.
    /// - Returns: the task running `work`.
    @discardableResult
    package func runInBackgroundTask(
        named name: String,
        _ work: @escaping @Sendable () async -> Void
    ) -> Task<Void, Never> {
        guard let provider = backgroundTasks else {
            return Task { await work() }
        }
        let grant = BackgroundTaskGrant()
        grant.setEnd(
            provider.beginBackgroundTask(named: name) {
                grant.expire()
            }
        )
        let running = Task {
            // An expiry that came before this task was known to the grant cancels it here;
            // a later one, through `setWork` or `expire`.
            if grant.hasExpired {
                withUnsafeCurrentTask { $0?.cancel() }
            }
            await work()
            grant.end()
        }
        grant.setWork(running)
        return running
    }
}

/// One background task while it runs: ends it exactly once, whichever comes first (the work
/// finishing or the time running out), also when the time runs out before the provider has
/// returned the closure that ends it.
private final class BackgroundTaskGrant: Sendable {
    private struct State {
        var end: (@Sendable () -> Void)?
        var work: Task<Void, Never>?
        var expired = false
        var ended = false
    }

    private let state = Locked(State())

    func setEnd(_ end: @escaping @Sendable () -> Void) {
        let endsNow = state.withLock { state -> Bool in
            state.end = end
            return state.expired
        }
        if endsNow { self.end() }
    }

    func setWork(_ work: Task<Void, Never>) {
        let cancelsNow = state.withLock { state -> Bool in
            state.work = work
            return state.expired
        }
        if cancelsNow { work.cancel() }
    }

    var hasExpired: Bool {
        state.withLock { $0.expired }
    }

    /// The granted time runs out: cancel the work and end the task before returning.
    func expire() {
        let work = state.withLock { state -> Task<Void, Never>? in
            state.expired = true
            return state.work
        }
        work?.cancel()
        end()
    }

    /// Ends the task once; later calls, and calls before the end closure is known, do nothing
    /// (``setEnd(_:)`` ends it then if the time ran out).
    func end() {
        let end = state.withLock { state -> (@Sendable () -> Void)? in
            guard !state.ended, let end = state.end else { return nil }
            state.ended = true
            return end
        }
        end?()
    }
}
