import TelemetryKit

/// Coalesces concurrent writes into one commit (group commit).
///
/// Each `submit` call waits (suspended, not blocking a thread) until its items are committed.
/// The first caller to find no commit running becomes the leader: it commits everything
/// queued so far in one `commit` call, then anything queued meanwhile, and resumes every
/// waiter of a round with that round's result. A leader runs a few rounds at most and then
/// hands the rest to a new task, so no caller's thread is held for long on others' behalf.
///
/// ```swift
/// let committer = GroupCommitter<Row> { rows in try database.insertInOneTransaction(rows) }
/// try await committer.submit(rows)   // durable when this returns
/// ```
public final class GroupCommitter<Item: Sendable>: Sendable {
    private struct Waiter {
        let items: [Item]
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var waiting: [Waiter] = []
        var leaderActive = false
    }

    private let state = Locked(State())
    private let commit: @Sendable ([Item]) throws -> Void
    private let maximumRoundsPerLeader: Int

    /// Creates a committer.
    /// - Parameters:
    ///   - maximumRoundsPerLeader: rounds a leader runs on its caller's thread before handing
    ///     the queue to a new task.
    ///   - commit: writes one round's items, in order, as one unit (one transaction, one fsync).
    public init(maximumRoundsPerLeader: Int = 4, commit: @escaping @Sendable ([Item]) throws -> Void) {
        self.maximumRoundsPerLeader = max(1, maximumRoundsPerLeader)
        self.commit = commit
    }

    /// The number of submissions waiting for the next round (diagnostics and tests).
    public var queuedSubmissions: Int {
        state.withLock { $0.waiting.count }
    }

    /// Commits `items` (possibly together with other callers' items); returns once committed.
    public func submit(_ items: [Item]) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let leads = state.withLock { state -> Bool in
                state.waiting.append(Waiter(items: items, continuation: continuation))
                if state.leaderActive { return false }
                state.leaderActive = true
                return true
            }
            if leads { drain() }
        }
    }

    private func drain() {
        for _ in 0..<maximumRoundsPerLeader {
            let round = state.withLock { state -> [Waiter]? in
                if state.waiting.isEmpty {
                    state.leaderActive = false
                    return nil
                }
                defer { state.waiting = [] }
                return state.waiting
            }
            guard let round else { return }
            let items = round.count == 1 ? round[0].items : round.flatMap(\.items)
            do {
                try commit(items)
                for waiter in round { waiter.continuation.resume() }
            } catch {
                for waiter in round { waiter.continuation.resume(throwing: error) }
            }
        }
        // Still leader: let a new task continue so this caller's thread is released.
        Task { self.drain() }
    }
}
