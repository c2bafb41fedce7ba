import TelemetryKit

/// A turn that async callers hold one at a time, given in the order they asked (FIFO), and
/// held across suspensions: what a lock cannot do.
///
/// Why one type: a dispatcher's delivery rounds and a destination's overflow each need work
/// that awaits a cache or a transmitter to run alone and in order. Written once, the hand-over
/// rule (a released turn goes straight to the oldest waiter, so no newcomer slips in between)
/// is in one place.
///
/// ```swift
/// let rounds = AsyncTurn()
/// await rounds.acquire()
/// defer { rounds.release() }
/// let batch = try await cache.peek(limit: 100)   // no other round runs meanwhile
/// ```
package final class AsyncTurn: Sendable {
    private struct State {
        var held = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    package init() {}

    /// Someone holds the turn now.
    package var isHeld: Bool { state.withLock { $0.held } }

    /// Callers waiting for the turn (diagnostics and tests).
    package var waitingCount: Int { state.withLock { $0.waiters.count } }

    /// Returns once the caller holds the turn: at once when it is free, else after the
    /// callers that asked before it. On the caller's executor.
    nonisolated(nonsending) package func acquire() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let granted = state.withLock { state -> Bool in
                guard state.held else {
                    state.held = true
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if granted { continuation.resume() }
        }
    }

    /// Gives the turn to the oldest waiter, or frees it.
    package func release() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.waiters.isEmpty else {
                state.held = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
