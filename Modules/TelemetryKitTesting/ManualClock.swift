public import TelemetryKit
import TelemetryKitSupport

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A clock that only moves when a test says so.
///
/// Sleepers wake when `advance(by:)` passes their deadline, so timers, backoff and session
/// timeouts are tested without real waiting.
public final class ManualClock: TelemetryClock {
    private struct Sleeper {
        let id: Int
        let deadline: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var nextID = 0
        var sleepers: [Sleeper] = []
        var sleepHistory: [TimeInterval] = []
    }

    private let state: Locked<State>

    /// Creates a clock at `start` (default 2024-01-01T00:00:00Z).
    public init(start: Date = Date(timeIntervalSince1970: 1_704_067_200)) {
        state = Locked(State(now: start))
    }

    public var now: Date { state.withLock { $0.now } }

    public func sleep(for seconds: TimeInterval) async throws {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            state.sleepHistory.append(seconds)
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow = state.withLock { state -> Bool in
                    if seconds <= 0 { return true }
                    state.sleepers.append(
                        Sleeper(id: id, deadline: state.now.addingTimeInterval(seconds), continuation: continuation)
                    )
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        } onCancel: {
            let sleeper = state.withLock { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            sleeper?.continuation.resume(throwing: CancellationError())
        }
    }

    /// Moves time forward and wakes every sleeper whose deadline has passed.
    public func advance(by seconds: TimeInterval) {
        let woken = state.withLock { state -> [Sleeper] in
            state.now = state.now.addingTimeInterval(seconds)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for sleeper in woken { sleeper.continuation.resume() }
    }

    /// Sets the current date without waking anyone whose deadline is still ahead.
    public func set(_ date: Date) {
        let delta = date.timeIntervalSince(now)
        advance(by: delta)
    }

    /// The number of tasks sleeping right now.
    public var sleeperCount: Int { state.withLock { $0.sleepers.count } }

    /// Every duration passed to `sleep(for:)`, in order.
    public var sleepHistory: [TimeInterval] { state.withLock { $0.sleepHistory } }

    /// Waits (yielding, not sleeping) until at least `count` tasks sleep on this clock.
    public func waitForSleepers(_ count: Int = 1) async {
        while sleeperCount < count {
            await Task.yield()
        }
    }
}
