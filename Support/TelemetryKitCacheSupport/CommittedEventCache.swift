import Dispatch
package import TelemetryKit
import TelemetryKitSupport

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

/// What differs between two durable caches that commit appends in groups: the storage
/// itself (a SQLite database, a JSON-lines journal). ``CommittedEventCache`` does the rest.
///
/// ## Implementation requirements
/// - `append` stores all `records` as one unit (one transaction, one fsync), in order, and
///   evicts the oldest events beyond `limit`, returning how many it evicted.
/// - Calls come one at a time (the cache holds a lock around each), on the cache's I/O
///   queue: they may block (an fsync, a compaction).
package protocol CommittedEventStore: SendableMetatype {
    /// One event as the store takes it: encoded by the caller (the JSON-lines journal's
    /// lines), or the event itself when the store encodes it on the I/O queue (SQLite), which
    /// keeps that work off the caller's executor when an awaited append stays on it.
    associatedtype Record: Sendable

    /// Events evicted so far (the limit, a maximum age, data lost to damage).
    var evicted: Int { get set }
    /// Events stored now.
    var count: Int { get }

    /// Stores `records` as one unit; returns how many old events it evicted for `limit`.
    mutating func append(_ records: [Record], limit: Int) throws -> Int
    /// Removes the events with these ids; unknown ids are ignored.
    mutating func remove(ids: [UUID]) throws
    /// Removes every event.
    mutating func removeAll() throws
}

/// The frame both durable caches share: the store behind a lock, its file work (opening,
/// appends, reads, removals) on one serial queue of the cache's own, off Swift's cooperative
/// pool, appends from concurrent callers committed together (``GroupCommitter``), every failure
/// reported as an ``EventCacheError`` naming the cache and its file, and events that cannot
/// be read back logged once per read instead of failing the read.
///
/// Why one frame: the durability and error-reporting rules of a cache live in these few
/// lines; the SQLite and the JSON-lines cache differ only in their store.
///
/// Why a store may be opened on the queue (``init(opening:name:path:limit:maxBytes:logger:idleDelay:whenIdle:)``):
/// opening reads the file (a check of every page, an upgrade of an old format), which an
/// app's launch should not wait for. As the queue's first job it runs while the app goes on,
/// and every call queued behind it finds the store open. When it fails, each later call tries
/// again, and fails with the opening's error until one succeeds.
///
/// ```swift
/// let frame = CommittedEventCache(store: journal, name: "JSON-lines event cache", path: path,
///                                 limit: 10_000, maxBytes: 8 << 20, logger: logger)
/// try await frame.append(events.map(JSONLinesRecord.init))   // durable when this returns
/// ```
package final class CommittedEventCache<Store: CommittedEventStore>: Sendable {
    /// The cache's name in messages, e.g. `"SQLite event cache"`.
    package let name: String
    /// The cache's file, in messages.
    package let path: String
    /// The most events kept.
    package let limit: Int
    private let state: Locked<State>
    /// Where the store's file work runs, one call at a time: a blocking fsync or compaction
    /// holds a dispatch thread, never one of the cooperative pool's (one per core).
    private let ioQueue: DispatchQueue
    private let committer: GroupCommitter<Store.Record>
    private let logger: any Logging

    private let idle: IdleWork<Store>?
    /// Appends have evicted events since the last removal (a delivery): logged once per episode.
    private let evicting: Locked<Bool>

    /// The store once open, and how to open it until then.
    fileprivate struct State {
        var store: Store?
        var open: (@Sendable () throws -> Store)?
    }

    /// Creates the frame around a store that is open already.
    ///
    /// - Parameters:
    ///   - whenIdle: work the store does once nothing was written for `idleDelay` after a
    ///     write (the SQLite cache moves its log into the database and truncates it, so the
    ///     files are small at rest); its failures are ignored (the next idle time tries again).
    package convenience init(
        store: Store,
        name: String,
        path: String,
        limit: Int,
        maxBytes: Int,
        logger: any Logging,
        idleDelay: Duration = .milliseconds(500),
        whenIdle: (@Sendable (inout Store) throws -> Void)? = nil
    ) {
        self.init(
            state: State(store: store, open: nil),
            name: name,
            path: path,
            limit: limit,
            maxBytes: maxBytes,
            logger: logger,
            idleDelay: idleDelay,
            whenIdle: whenIdle
        )
    }

    private init(
        state: State,
        name: String,
        path: String,
        limit: Int,
        maxBytes: Int,
        logger: any Logging,
        idleDelay: Duration,
        whenIdle: (@Sendable (inout Store) throws -> Void)?
    ) {
        let state = Locked(state)
        self.state = state
        self.name = name
        self.path = path
        self.limit = limit
        self.logger = logger
        let ioQueue = DispatchQueue(label: "TelemetryKit.\(name)")
        self.ioQueue = ioQueue
        let idle = whenIdle.map { IdleWork(store: state, queue: ioQueue, delay: idleDelay, work: $0) }
        self.idle = idle
        let evicting = Locked(false)
        self.evicting = evicting
        committer = GroupCommitter(queue: ioQueue) { records in
            let evicted = try Self.perform("append to", on: state, name: name, path: path) { store in
                let evicted = try store.append(records, limit: limit)
                store.evicted += evicted
                return evicted
            }
            idle?.noteWrite()
            let startsAnEpisode = {
                evicting.withLock { evicting in
                    defer { evicting = true }
                    return !evicting
                }
            }
            if evicted > 0, startsAnEpisode() {
                logger.warning(
                    "The \(name) at \(path) is full (\(limit) events or \(maxBytes) bytes): evicted the "
                        + "\(evicted) oldest event(s) to keep new ones. Further evictions are counted in the "
                        + "client's stats (evicted), and logged again once events are delivered."
                )
            }
        }
    }

    /// Creates the frame and opens its store with `open` as the first job of its queue: the
    /// caller does not wait for the file work. When it fails, each later call tries again (see
    /// the type's description), and ``opened()`` reports the failure.
    package convenience init(
        opening open: @escaping @Sendable () throws -> Store,
        name: String,
        path: String,
        limit: Int,
        maxBytes: Int,
        logger: any Logging,
        idleDelay: Duration = .milliseconds(500),
        whenIdle: (@Sendable (inout Store) throws -> Void)? = nil
    ) {
        self.init(
            state: State(store: nil, open: open),
            name: name,
            path: path,
            limit: limit,
            maxBytes: maxBytes,
            logger: logger,
            idleDelay: idleDelay,
            whenIdle: whenIdle
        )
        // Its failure is not logged here: every call meets it (and tries again), and reports it
        // to its caller, who says it once (the client logs a failing append).
        ioQueue.async { [self] in _ = try? perform("open") { _ in } }
    }

    /// Appends `records`, together with concurrent callers' records; durable when this returns.
    ///
    /// On the caller's executor up to the hand-off to the I/O queue (see ``GroupCommitter``).
    nonisolated(nonsending) package func append(_ records: [Store.Record]) async throws {
        guard !records.isEmpty else { return }
        try await committer.submit(records)
    }

    /// Returns once the store is open, or throws why it cannot be opened.
    package func opened() async throws {
        try await performOnIOQueue("open") { _ in }
    }

    /// Reads events with `body` (on the I/O queue); the unreadable ones it reports are dropped
    /// from the result and logged in one warning.
    package func read(
        _ body: @escaping @Sendable (inout Store) throws -> (events: [Event], unreadable: [String])
    ) async throws -> [Event] {
        let (events, unreadable) = try await performOnIOQueue("read from", body)
        if !unreadable.isEmpty {
            logger.warning(
                "Dropped \(unreadable.count) unreadable event(s) from the \(name) at \(path): "
                    + unreadable.prefix(3).joined(separator: "; ")
            )
        }
        return events
    }

    package func remove(ids: [UUID]) async throws {
        guard !ids.isEmpty else { return }
        try await performOnIOQueue("remove from") { try $0.remove(ids: ids) }
        evicting.set(false)
        idle?.noteWrite()
    }

    package func removeAll() async throws {
        try await performOnIOQueue("clear") { try $0.removeAll() }
        idle?.noteWrite()
    }

    /// Appends waiting for the next commit round (diagnostics and tests).
    package var queuedAppends: Int { committer.queuedSubmissions }

    /// The events stored; 0 while the store is not open.
    package var count: Int { state.withLock { $0.store?.count ?? 0 } }

    package var evicted: Int { state.withLock { $0.store?.evicted ?? 0 } }

    /// Runs `body` on the store under the lock, opening it first if it is not open; a failure
    /// becomes an ``EventCacheError`` saying what could not be done (`"Cannot <action> the
    /// <name>: …"`) and naming the file. An ``EventCacheError`` of the opening is thrown as
    /// it is: it says what failed already.
    package func perform<Result>(_ action: String, _ body: (inout Store) throws -> Result) throws -> Result {
        try Self.perform(action, on: state, name: name, path: path, body)
    }

    /// ``perform(_:_:)`` for the committer, which is built in `init` before `self` exists.
    private static func perform<Result>(
        _ action: String,
        on state: Locked<State>,
        name: String,
        path: String,
        _ body: (inout Store) throws -> Result
    ) throws -> Result {
        try state.withLock { state in
            if state.store == nil, let open = state.open {
                do {
                    state.store = try open()
                    state.open = nil
                } catch let error as EventCacheError {
                    throw error
                } catch {
                    throw EventCacheError("Cannot open the \(name): \(error)", path: path)
                }
            }
            do {
                return try body(&state.store!)
            } catch {
                throw EventCacheError("Cannot \(action) the \(name): \(error)", path: path)
            }
        }
    }

    /// ``perform(_:_:)`` on the I/O queue, behind the opening, the appends and the reads
    /// queued before it.
    private func performOnIOQueue<Result: Sendable>(
        _ action: String,
        _ body: @escaping @Sendable (inout Store) throws -> Result
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            ioQueue.async { [ioQueue] in
                let result = Swift.Result { try self.perform(action, body) }
                // From a block that does not hold this cache (see `GroupCommitter`): a caller
                // that releases it once resumed finds its store closed.
                ioQueue.async { continuation.resume(with: result) }
            }
        }
    }

    /// Returns once everything queued on the I/O queue before this call has run.
    package func waitForQueuedWork() async {
        await withCheckedContinuation { continuation in
            ioQueue.async { continuation.resume() }
        }
    }

    /// Reads the store's state under the lock (sizes, counters), without failing; nil while
    /// the store is not open.
    package func inspect<Result>(_ body: (Store) -> Result) -> Result? {
        state.withLock { $0.store.map(body) }
    }

    /// ``inspect(_:)`` for a diagnostic that must include what the opening found: while the
    /// store is not open, it first waits for the work queued on the I/O queue, blocking the
    /// caller's thread meanwhile (never call it on the I/O queue). Nil when the opening failed.
    package func inspectOnceOpened<Result>(_ body: (Store) -> Result) -> Result? {
        if let opened = inspect(body) { return opened }
        ioQueue.sync {}
        return inspect(body)
    }
}

/// Runs maintenance on a store once its writes have paused: scheduled `delay` after a write,
/// postponed while writes go on, then run on the store's queue under its lock.
///
/// Holds the store weakly: a closed cache's store is released at once, not after the delay.
private final class IdleWork<Store: CommittedEventStore>: Sendable {
    private struct Writes {
        var writes = 0
        var scheduled = false
    }

    private weak let store: Locked<CommittedEventCache<Store>.State>?
    private let queue: DispatchQueue
    private let delay: Duration
    private let work: @Sendable (inout Store) throws -> Void
    private let state = Locked(Writes())

    init(
        store: Locked<CommittedEventCache<Store>.State>,
        queue: DispatchQueue,
        delay: Duration,
        work: @escaping @Sendable (inout Store) throws -> Void
    ) {
        self.store = store
        self.queue = queue
        self.delay = delay
        self.work = work
    }

    func noteWrite() {
        let (schedules, writes) = state.withLock { state -> (Bool, Int) in
            state.writes += 1
            defer { state.scheduled = true }
            return (!state.scheduled, state.writes)
        }
        if schedules { schedule(after: writes) }
    }

    private func schedule(after writes: Int) {
        let (seconds, attoseconds) = delay.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        queue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
            self?.runIfIdle(since: writes)
        }
    }

    private func runIfIdle(since writes: Int) {
        let now = state.withLock { state -> Int? in
            if state.writes != writes { return state.writes }
            state.scheduled = false
            return nil
        }
        if let now {
            schedule(after: now)
            return
        }
        store?.withLock { state in
            guard state.store != nil else { return }
            try? work(&state.store!)
        }
    }
}
