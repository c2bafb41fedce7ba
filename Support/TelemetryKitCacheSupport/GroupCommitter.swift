public import Dispatch
import TelemetryKit
import TelemetryKitSupport

/// Coalesces concurrent writes into one commit (group commit), run on a thread of its own.
///
/// Each `submit` call waits (suspended, not blocking a thread) until its items are committed.
/// Commits run one at a time on a serial dispatch queue (given at creation: the store's own,
/// so that its reads and removals take turns with the commits). While one runs, new
/// submissions queue up, and the next round writes all of them in a single `commit` call: a
/// burst of appends from many tasks costs one transaction and one fsync per round, not one
/// per caller. Every waiter of a round is resumed with that round's result.
///
/// Why a dispatch queue, not the caller's thread: a commit blocks in `fsync` for a
/// millisecond or more on real storage, and Swift's cooperative pool has one thread per core.
/// Two durable caches committing on it at once would hold every thread of a two-core device,
/// and no task of the app could run until the disks answered. The queue's thread is
/// dispatch's, outside that pool; the one hop per round is cheap next to the fsync it waits for.
///
/// Why `submit` runs on the caller's executor (`nonisolated(nonsending)`): an awaited event
/// then costs two thread hand-offs, the caller's to the queue and the queue's back to the
/// caller (the committing thread resumes the waiter onto the caller's own executor, the main
/// actor for a `send` awaited there). Were `submit` an ordinary `async` method, a caller on
/// the main actor would first hop to the cooperative pool, and the commit's end would come
/// back through it: four hand-offs, each a thread wake-up that costs more than the commit
/// itself when it only writes to the log (SQLite's `synchronous = NORMAL`). No round waits
/// for more submissions: a lone awaited event is committed as soon as the queue runs it.
///
/// ```swift
/// let committer = GroupCommitter<Row>(queue: DispatchQueue(label: "sqlite-cache")) { rows in
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
        /// A drain is scheduled or running on `queue`; it takes everything queued until it starts.
        var draining = false
    }

    private let state = Locked(State())
    private let queue: DispatchQueue
    private let commit: @Sendable ([Item]) throws -> Void

    /// Creates a committer.
    /// - Parameters:
    ///   - queue: the serial queue the commits run on. Pass the queue that runs the store's
    ///     other work (reads, removals) to keep all of it in one order, off the cooperative pool.
    ///   - commit: writes one round's items, in order, as one unit (one transaction, one fsync).
    ///     It runs on `queue`, one round at a time; it may block.
    public init(
        queue: DispatchQueue = DispatchQueue(label: "TelemetryKit.GroupCommitter"),
        commit: @escaping @Sendable ([Item]) throws -> Void
    ) {
        self.queue = queue
        self.commit = commit
    }

    /// The number of submissions waiting for the next round (diagnostics and tests).
    public var queuedSubmissions: Int {
        state.withLock { $0.waiting.count }
    }

    /// Commits `items` (possibly together with other callers' items); returns once committed.
    ///
    /// Suspends the caller (never blocks its thread) and resumes it on its own executor.
    nonisolated(nonsending) public func submit(_ items: [Item]) async throws {
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

    /// Commits one round (on `queue`), then queues the next drain behind whatever else was
    /// put on the queue meanwhile (a read, a removal), so a stream of appends cannot hold it.
    private func drain() {
        let round = state.withLock { state -> [Waiter] in
            defer { state.waiting = [] }
            return state.waiting
        }
        // Closures, not key paths (`\.items`): in a generic type the runtime builds a key path
        // object on every call, on the cache's I/O thread.
        let items = round.count == 1 ? round[0].items : round.flatMap { $0.items }
        // Never empty: a drain is scheduled only for a waiter, and only drains take them.
        let result = Result { try commit(items) }
        let more = state.withLock { state -> Bool in
            state.draining = !state.waiting.isEmpty
            return state.draining
        }
        // The waiters are resumed from a block of their own, queued ahead of the next round:
        // this block holds the committer (and through `commit` the store) until it returns,
        // so a waiter that lets go of the store once resumed (closing a file that refuses a
        // second opener) must not run before it has.
        let continuations = round.map { $0.continuation }
        queue.async {
            for continuation in continuations { continuation.resume(with: result) }
        }
        if more {
            queue.async { self.drain() }
        }
    }
}
