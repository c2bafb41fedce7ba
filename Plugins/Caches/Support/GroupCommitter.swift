import Dispatch
import TelemetryKit

/// Coalesces concurrent writes into one commit (group commit), run on a thread of its own.
///
/// Each `submit` call waits (suspended, not blocking a thread) until its items are committed.
/// Commits run one at a time on the committer's serial dispatch queue. While one runs, new
/// submissions queue up, and the next round writes all of them in a single `commit` call: a
/// burst of appends from many tasks costs one transaction and one fsync per round, not one
/// per caller. Every waiter of a round is resumed with that round's result.
///
/// Why a queue of its own, not the caller's thread: a commit blocks in `fsync` for a
/// millisecond or more on real storage, and Swift's cooperative pool has one thread per core.
/// Two durable caches committing on it at once would hold every thread of a two-core device,
/// and no task of the app could run until the disks answered. The queue's thread is
/// dispatch's, outside that pool; the one hop per round is cheap next to the fsync it waits for.
///
/// ```swift
/// let committer = GroupCommitter<Row>(label: "sqlite-cache") { rows in
///     try database.insertInOneTransaction(rows)
/// }
/// try await committer.submit(rows)   // durable when this returns
/// ```
public final class GroupCommitter<Item: Sendable>: Sendable {
    private struct Waiter {
        let items: [Item]
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var waiting: [Waiter] = []
        /// A drain is scheduled or running on `queue`; it takes everything queued meanwhile.
        var draining = false
    }

    private let state = Locked(State())
    private let queue: DispatchQueue
    private let commit: @Sendable ([Item]) throws -> Void

    /// Creates a committer.
    /// - Parameters:
    ///   - label: names the commit queue (its thread shows it in a debugger or a crash log).
    ///   - commit: writes one round's items, in order, as one unit (one transaction, one fsync).
    ///     It runs on the committer's queue, one round at a time; it may block.
    public init(label: String = "TelemetryKit.GroupCommitter", commit: @escaping @Sendable ([Item]) throws -> Void) {
        queue = DispatchQueue(label: label)
        self.commit = commit
    }

    /// The number of submissions waiting for the next round (diagnostics and tests).
    public var queuedSubmissions: Int {
        state.withLock { $0.waiting.count }
    }

    /// Commits `items` (possibly together with other callers' items); returns once committed.
    public func submit(_ items: [Item]) async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let schedules = state.withLock { state -> Bool in
                state.waiting.append(Waiter(items: items, continuation: continuation))
                if state.draining { return false }
                state.draining = true
                return true
            }
            if schedules {
                queue.async { self.drain() }
            }
        }
    }

    /// Commits round after round until nothing is queued (on `queue`).
    private func drain() {
        while true {
            let round = state.withLock { state -> [Waiter]? in
                if state.waiting.isEmpty {
                    state.draining = false
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
    }
}
