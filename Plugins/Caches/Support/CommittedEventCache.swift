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

/// The frame both durable caches share: the store behind a lock, its file work (appends,
/// reads, removals) on one serial queue of the cache's own, off Swift's cooperative pool,
/// appends from concurrent callers committed together (``GroupCommitter``), every failure
/// reported as an ``EventCacheError`` naming the cache and its file, and events that cannot
/// be read back logged once per read instead of failing the read.
///
/// Why one frame: the durability and error-reporting rules of a cache live in these few
/// lines; the SQLite and the JSON-lines cache differ only in their store.
///
/// ```swift
/// let frame = CommittedEventCache(store: journal, name: "JSON-lines event cache", path: path,
///                                 limit: 10_000, logger: logger)
/// try await frame.append(events.map(JSONLinesRecord.init))   // durable when this returns
/// ```
package final class CommittedEventCache<Store: CommittedEventStore>: Sendable {
    /// The cache's name in messages, e.g. `"SQLite event cache"`.
    package let name: String
    /// The cache's file, in messages.
    package let path: String
    /// The most events kept.
    package let limit: Int
    private let store: Locked<Store>
    /// Where the store's file work runs, one call at a time: a blocking fsync or compaction
    /// holds a dispatch thread, never one of the cooperative pool's (one per core).
    private let ioQueue: DispatchQueue
    private let committer: GroupCommitter<Store.Record>
    private let logger: any Logging

    private let idle: IdleWork<Store>?
    /// Appends have evicted events since the last removal (a delivery): logged once per episode.
    private let evicting: Locked<Bool>
    /// Where an awaited append goes instead of waiting for its commit (see
    /// ``appendForWaitingCaller(_:encode:)``); nil when every append waits.
    private let journal: IntakeJournal<Store.Record>?
    /// Journaled commits that fail: logged once per episode, retried by one timer at a time.
    private let journalFailure = Locked((failing: false, retryScheduled: false))

    /// Creates the frame around `store`.
    ///
    /// - Parameters:
    ///   - journal: makes an awaited append durable against a process kill without waiting for
    ///     its commit (see ``appendForWaitingCaller(_:encode:)``) once the store has opened it
    ///     (on the I/O queue, after appending what dead instances left in theirs).
    ///   - whenIdle: work the store does once nothing was written for `idleDelay` after a
    ///     write (the SQLite cache moves its log into the database and truncates it, so the
    ///     files are small at rest); its failures are ignored (the next idle time tries again).
    package init(
        store: Store,
        name: String,
        path: String,
        limit: Int,
        maxBytes: Int,
        logger: any Logging,
        journal: IntakeJournal<Store.Record>? = nil,
        idleDelay: Duration = .milliseconds(500),
        whenIdle: (@Sendable (inout Store) throws -> Void)? = nil
    ) {
        let locked = Locked(store)
        self.store = locked
        self.name = name
        self.path = path
        self.limit = limit
        self.logger = logger
        let ioQueue = DispatchQueue(label: "TelemetryKit.\(name)")
        self.ioQueue = ioQueue
        let idle = whenIdle.map { IdleWork(store: locked, queue: ioQueue, delay: idleDelay, work: $0) }
        self.idle = idle
        let evicting = Locked(false)
        self.evicting = evicting
        self.journal = journal
        committer = GroupCommitter(queue: ioQueue) { records in
            try Self.commit(
                records,
                to: locked,
                journal: journal,
                name: name,
                path: path,
                limit: limit
            ) { evicted in
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
    }

    /// One commit round (on the I/O queue): the journaled records first (they were appended
    /// before any record of a later call), then `records`, as one unit.
    private static func commit(
        _ records: [Store.Record],
        to store: Locked<Store>,
        journal: IntakeJournal<Store.Record>?,
        name: String,
        path: String,
        limit: Int,
        afterwards: (_ evicted: Int) -> Void
    ) throws {
        let journaled = journal?.takePending() ?? []
        guard !journaled.isEmpty || !records.isEmpty else { return }
        let evicted = try perform("append to", on: store, name: name, path: path) { store in
            let evicted = try store.append(journaled.isEmpty ? records : journaled + records, limit: limit)
            store.evicted += evicted
            // Under the store's lock, so that `count` never sees them in both places.
            journal?.markCommitted(journaled.count)
            return evicted
        }
        afterwards(evicted)
    }

    /// Appends `records`, together with concurrent callers' records; durable when this returns.
    ///
    /// On the caller's executor up to the hand-off to the I/O queue (see ``GroupCommitter``).
    nonisolated(nonsending) package func append(_ records: [Store.Record]) async throws {
        guard !records.isEmpty else { return }
        try await committer.submit(records)
    }

    /// Appends `records` for a caller that waits for them (an awaited event): with a journal,
    /// they are encoded with `encode` and copied into it on the caller's thread, which makes
    /// them survive a process kill at once, and the call returns without waiting for the
    /// commit, which follows on the I/O queue before any later append, read or removal. Without
    /// a journal, or when the records do not fit in it (judged first by the first record's
    /// size times their count), this is ``append(_:)``.
    ///
    /// A journaled commit that fails is logged and tried again (every second, and before every
    /// later append, read or removal); its records stay in the journal meanwhile, so a process
    /// that ends first leaves them to the next opening.
    nonisolated(nonsending) package func appendForWaitingCaller(
        _ records: [Store.Record],
        encode: (Store.Record, inout [UInt8]) -> Void
    ) async throws {
        guard !records.isEmpty else { return }
        if let journal, case let room = journal.freeBytes, room > 0 {
            // The first record's size, times the group's count, predicts whether the group
            // fits: a group far too large (a barrier's take can hold hundreds of events) is
            // refused after one encoding, not after filling the room with encodings that go
            // unused. A misprediction only means this caller waits for the commit.
            var bytes: [UInt8] = []
            bytes.reserveCapacity(min(room, 2048))
            encode(records[0], &bytes)
            var ends = [bytes.count]
            let predicted = (bytes.count + 4) * records.count
            if predicted <= room, records.count > 1 {
                bytes.reserveCapacity(min(room, predicted + predicted / 4))
                ends.reserveCapacity(records.count)
                // Encoding stops as soon as the records cannot fit.
                for record in records.dropFirst() where bytes.count + 4 * ends.count <= room {
                    encode(record, &bytes)
                    ends.append(bytes.count)
                }
            }
            switch ends.count == records.count ? journal.record(records, bytes: bytes, ends: ends) : .refused {
            case .recorded(let schedulesCommit):
                if schedulesCommit { ioQueue.async { self.commitJournaled() } }
                return
            case .refused:
                break
            }
        }
        try await committer.submit(records)
    }

    /// Commits the journaled records, if any (on the I/O queue); a failure is logged once per
    /// episode and tried again in a second.
    private func commitJournaled() {
        guard let journal else { return }
        if journal.pendingCount > 0 {
            do {
                try Self.commit([], to: store, journal: journal, name: name, path: path, limit: limit) { _ in
                    idle?.noteWrite()
                }
            } catch {
                noteJournalFailure(error, pending: journal.pendingCount)
                return
            }
        }
        // Committed here, or nothing was left (an append's round committed it): an episode
        // of failures is over.
        let recovered = journalFailure.withLock { state in
            defer { state.failing = false }
            return state.failing
        }
        if recovered {
            logger.log(.info, "The \(name) at \(path) commits again; the journaled events are in it.")
        }
    }

    /// Logs the first failure of an episode and schedules one retry (however many reads and
    /// appends meet the failure meanwhile).
    private func noteJournalFailure(_ error: any Error, pending: Int) {
        let (first, schedules) = journalFailure.withLock { state in
            defer { (state.failing, state.retryScheduled) = (true, true) }
            return (!state.failing, !state.retryScheduled)
        }
        if first {
            logger.log(
                .error,
                "\(error). \(pending) awaited event(s) wait in the intake journal, which survives the "
                    + "process ending; trying again every second."
            )
        }
        guard schedules else { return }
        ioQueue.asyncAfter(deadline: .now() + .seconds(1)) { [weak self] in
            guard let self else { return }
            journalFailure.withLock { $0.retryScheduled = false }
            commitJournaled()
        }
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

    /// The events stored, journaled ones included.
    package var count: Int { store.withLock { $0.count + (journal?.pendingCount ?? 0) } }

    package var evicted: Int { store.withLock { $0.evicted } }

    /// Runs `body` on the store under the lock; a failure becomes an ``EventCacheError``
    /// saying what could not be done (`"Cannot <action> the <name>: …"`) and naming the file.
    package func perform<Result>(_ action: String, _ body: (inout Store) throws -> Result) throws -> Result {
        try Self.perform(action, on: store, name: name, path: path, body)
    }

    /// ``perform(_:_:)`` for the committer, which is built in `init` before `self` exists.
    private static func perform<Result>(
        _ action: String,
        on store: Locked<Store>,
        name: String,
        path: String,
        _ body: (inout Store) throws -> Result
    ) throws -> Result {
        do {
            return try store.withLock { try body(&$0) }
        } catch {
            throw EventCacheError("Cannot \(action) the \(name): \(error)", path: path)
        }
    }

    /// ``perform(_:_:)`` on the I/O queue, behind the appends and reads queued before it, and
    /// after the journaled records are committed (a read sees every awaited event).
    private func performOnIOQueue<Result: Sendable>(
        _ action: String,
        _ body: @escaping @Sendable (inout Store) throws -> Result
    ) async throws -> Result {
        try await withCheckedThrowingContinuation { continuation in
            ioQueue.async { [ioQueue] in
                self.commitJournaled()
                let result = Swift.Result { try self.perform(action, body) }
                // From a block that does not hold this cache (see `GroupCommitter`): a caller
                // that releases it once resumed finds its store closed.
                ioQueue.async { continuation.resume(with: result) }
            }
        }
    }

    /// Queues `body` on the I/O queue, ahead of every call made later, without waiting for
    /// it: work of opening that must come before any append or read but need not hold up the
    /// caller (an app's launch). A failure is logged; the calls after it meet it again.
    package func startOnIOQueue(_ action: String, _ body: @escaping @Sendable (inout Store) throws -> Void) {
        ioQueue.async { [self] in
            do {
                try perform(action, body)
            } catch {
                logger.warning("\(error)")
            }
        }
    }

    /// Queues `body` on the I/O queue `delay` from now, unless the cache is gone by then: work
    /// that must not compete with an app's launch (a check that reads the whole file). A
    /// failure is logged, as with ``startOnIOQueue(_:_:)``.
    package func startOnIOQueue(
        _ action: String,
        after delay: Duration,
        _ body: @escaping @Sendable (inout Store) throws -> Void
    ) {
        let (seconds, attoseconds) = delay.components
        let nanoseconds = Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000)
        ioQueue.asyncAfter(deadline: .now() + .nanoseconds(nanoseconds)) { [weak self] in
            self?.startOnIOQueue(action, body)
        }
    }

    /// Returns once everything queued on the I/O queue before this call has run.
    package func waitForQueuedWork() async {
        await withCheckedContinuation { continuation in
            ioQueue.async { continuation.resume() }
        }
    }

    /// ``waitForQueuedWork()`` for a synchronous caller: blocks its thread meanwhile. Only for
    /// diagnostics read right after opening; never call it on the I/O queue.
    package func waitForQueuedWorkBlocking() {
        ioQueue.sync {}
    }

    /// Reads the store's state under the lock (sizes, counters), without failing.
    package func inspect<Result>(_ body: (Store) -> Result) -> Result {
        store.withLock { body($0) }
    }
}

/// Runs maintenance on a store once its writes have paused: scheduled `delay` after a write,
/// postponed while writes go on, then run on the store's queue under its lock.
///
/// Holds the store weakly: a closed cache's store is released at once, not after the delay.
private final class IdleWork<Store>: Sendable {
    private struct State {
        var writes = 0
        var scheduled = false
    }

    private weak let store: Locked<Store>?
    private let queue: DispatchQueue
    private let delay: Duration
    private let work: @Sendable (inout Store) throws -> Void
    private let state = Locked(State())

    init(
        store: Locked<Store>,
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
        store?.withLock { try? work(&$0) }
    }
}

extension CommittedEventStore {
    /// `CommittedEventCache(store: self, …)`, made where `Self` is a generic parameter: for
    /// the caches' initialisers, which `Telemetry.initialize` runs while an app launches.
    ///
    /// Why: code that names `CommittedEventCache<SQLiteDatabase>` gets its type from a
    /// mangled name, and the Swift runtime finds the store's conformance for it by searching
    /// every conformance record of the process, once per process.
    /// Here, unspecialised, the conformance is the argument the caller passes.
    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    package func framed(
        name: String,
        path: String,
        limit: Int,
        maxBytes: Int,
        logger: any Logging,
        journal: IntakeJournal<Record>?,
        whenIdle: (@Sendable (inout Self) throws -> Void)?
    ) -> CommittedEventCache<Self> {
        CommittedEventCache(
            store: self,
            name: name,
            path: path,
            limit: limit,
            maxBytes: maxBytes,
            logger: logger,
            journal: journal,
            whenIdle: whenIdle
        )
    }
}
