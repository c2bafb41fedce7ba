import TelemetryKit
import TelemetryKitSupport

extension TelemetryClient {
    /// Where the client gets running time for saving and sending after the app went to the
    /// background (UIKit's background tasks; `Telemetry.initialize` sets them on iOS, tvOS
    /// and visionOS). Nil, the default: the work runs for as long as the app does.
    public var backgroundTasks: (any BackgroundTaskProviding)? {
        get { backgroundTaskProvider.current }
        set { backgroundTaskProvider.set(newValue) }
    }

    /// Runs `work` on a new task, inside a background task of `provider` when there is one:
    /// begun before `work` starts, ended once `work` returns, or, when the granted time runs
    /// out first, `work` is cancelled and the background task ended right away.
    ///
    /// - Parameters:
    ///   - provider: where the running time comes from; nil runs `work` as it is.
    ///   - name: names the background task (the system shows it in diagnostics).
    ///   - work: the work to finish before the app is suspended; it should stop soon when
    ///     cancelled.
    /// - Returns: the task running `work`.
    @discardableResult
    package static func runInBackgroundTask(
        of provider: (any BackgroundTaskProviding)?,
        named name: String,
        _ work: @escaping @Sendable () async -> Void
    ) -> Task<Void, Never> {
        guard let provider else {
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
