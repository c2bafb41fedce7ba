public import TelemetryKit
import TelemetryKitCacheSupport
import TelemetryKitSupport

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A durable FIFO event cache in a SQLite database (the system SQLite, WAL mode).
///
/// Events survive a crash or a kill of the process from the moment `append` returns (and a
/// power cut too with ``Synchronous/full``). One table holds the events in insertion order
/// (an autoincrement sequence), each with its id (indexed, for `remove(ids:)`), its time and
/// its own part (name, parameters, `floatValue`); what many events share (app, user, session,
/// test mode and the processors' ~50 metadata entries) is stored once per distinct value in a
/// second table and referred to by id, so an event of the default pipeline takes about 130
/// bytes on disk instead of 2 KB. Concurrent appends are committed together in one
/// transaction (group commit). Whichever of `limit` (events), `maxBytes` and `maxEventAge`
/// is reached first evicts the oldest events, counted in ``evictedCount()`` and logged once
/// until the next delivery; events older than `maxEventAge` are dropped when the cache opens
/// and before a `peek`, at most every tenth of `maxEventAge` or every minute, whichever is
/// shorter (a scan without an index, so appends stay cheap). Half a second after the last
/// write the log is moved into the database and truncated, so the files are small at rest.
///
/// A database written by an earlier version (each event's whole JSON in its row) is converted
/// in place when it is opened.
///
/// A damaged file is recovered from, not kept failing: every page is checked (`PRAGMA
/// quick_check`) before the first read (a peek, the count), three seconds after opening, or
/// after the first 1,000 appended events, whichever comes first, so that neither opening nor
/// the appends of an app's launch wait for a read of the whole file; and damage
/// that SQLite reports later (an append, a peek, a removal) is handled there. The file is
/// moved aside with a `.corrupt` suffix (numbered when an older copy exists) for inspection,
/// the events still readable from it go into a fresh database, and the call that met the
/// damage runs again on it, so the events being appended are kept; so are those appended
/// before the check found the damage (held in memory until the check passes).
/// Each recovery logs one warning with both paths and counts in ``recoveredCorruptions``.
/// A file that is not a database at all, or holds another schema, is replaced the same way.
///
/// ```swift
/// let cache = try SQLiteEventCache(fileURL: supportDirectory.appending(path: "events.sqlite"))
/// let destination = Destination(id: "main", transmitter: transmitter, cache: cache)
/// ```
///
/// ## Several processes, one file
///
/// An app and its extensions, or several worker processes, may share one file (see
/// `Telemetry.Config.appGroupIdentifier`). Every process appends; one sends at a time:
///
/// - **A send lease in the database.** `peek` takes the queue's send lease (a row holding
///   the process id, a random token per instance and an expiry, ``sendLeaseDuration`` from
///   each peek) in the same `BEGIN IMMEDIATE` transaction that reads the batch; `remove`
///   releases it once the batch is gone. While another live process holds it, `peek`
///   returns no events: that process sends the oldest events, everyone's, in the order they
///   were appended, so each process's events keep their order. A lease frees itself when it
///   expires, and at once when its process is gone (killed): the next sender then sends the
///   dead sender's batch again, with the same event ids, the only duplicates that sharing
///   adds. Keep ``sendLeaseDuration`` above the transmitter's timeout (30 s for the HTTP
///   transmitter), or a slow send could be sent a second time by another process. A
///   `flush()` in a process that does not hold the lease ends at once: the events stay
///   queued for the holder (or for whoever sends next).
/// - **Counts in the database.** Eviction (`limit`, `maxBytes`) and the clean-up of shared
///   metadata run under SQLite's write lock on counts read from the file whenever another
///   process wrote since (`PRAGMA data_version`). ``count()`` is this instance's view as of
///   its last operation.
/// - **Recovery waits to be alone.** A damaged file is moved aside only when no other
///   instance has it open (see the shared lock on `<file>.lock` in the recovery notes above);
///   until then the calls that meet the damage fail with an ``EventCacheError``.
///
/// Use one instance per file in a process: instances in one process share the process's
/// lease.
public final class SQLiteEventCache: EventCaching, CallerExecutorAppending {
    /// How far a committed append survives.
    ///
    /// Why `.normal` is the default: an fsync per commit is slow, on a phone's flash most of
    /// all, and every awaited event would wait for one. What apps lose events to is the process ending (a crash, the system killing a
    /// suspended app, kill -9), which `.normal` survives; the power cut that only `.full`
    /// survives is rare on battery-powered devices.
    ///
    /// ```swift
    /// // A server that must keep every acknowledged event through a power cut:
    /// let cache = try SQLiteEventCache(fileURL: url, synchronous: .full)
    /// ```
    public enum Synchronous: Sendable, Hashable {
        /// Survives the process ending in any way (a crash, kill -9, the system ending a
        /// suspended app): a commit is in the write-ahead log in the kernel's page cache when
        /// `append` returns, and the kernel writes it out. A power cut or a kernel crash within
        /// seconds of a commit may lose the commits not yet on disk (SQLite `synchronous =
        /// NORMAL` in WAL mode); the database itself is never damaged by it.
        case normal
        /// Survives a power cut or a kernel crash as well: every append waits for an fsync of
        /// the log (`synchronous = FULL`). Removals are not fsynced: one lost to a power cut
        /// only means a re-send.
        case full
    }

    /// The database file.
    public let fileURL: URL
    /// The maximum number of events kept.
    public let limit: Int
    /// The most bytes of event data kept: each event's own part as stored (about 60–150
    /// bytes for an event of the default processors with a few parameters; the metadata that
    /// many events share is stored once and not counted).
    public let maxBytes: Int

    /// The default ``maxBytes``: 8 MiB, about 60,000 typical events, so ``limit`` is reached
    /// first unless events carry large parameters.
    public static let defaultMaxBytes = 8 * 1024 * 1024
    /// Events older than this (by `receivedAt`) are dropped; `nil` keeps them.
    public let maxEventAge: TimeInterval?
    /// How long a peek reserves sending for this process when other processes share the
    /// file (see "Several processes, one file"); renewed by every peek.
    public let sendLeaseDuration: TimeInterval

    /// The default ``sendLeaseDuration``: 60 s, twice the HTTP transmitter's default timeout,
    /// so that a send in flight keeps its lease; a killed sender's lease frees at once anyway.
    public static let defaultSendLeaseDuration: TimeInterval = 60
    /// This instance's send lease token and process.
    private let leaseToken: [UInt8]
    private let leaseProcess: Int32

    private let frame: CommittedEventCache<SQLiteDatabase>
    /// The check of the file has run: the counts are known.
    private let opened = Locked(false)

    /// How long after opening the check of every page runs at the latest (unless a read or
    /// the 1,000th append asks for it first): after an app's launch, which it would otherwise
    /// compete with for the disk and the processor (it reads the whole queue).
    package static let verificationDelay: Duration = .seconds(3)
    private let clock: any TelemetryClock
    private let pruneInterval: TimeInterval

    /// Opens or creates the cache at `fileURL`, creating the directory if needed.
    ///
    /// - Parameters:
    ///   - fileURL: the database file (`-wal` and `-shm` files appear beside it).
    ///   - limit: the maximum number of events kept (default 10,000); the oldest are evicted.
    ///   - maxBytes: the most bytes of event data kept (default ``defaultMaxBytes``); the
    ///     oldest are evicted. Whichever of `limit`, `maxBytes` and `maxEventAge` is reached
    ///     first evicts; evictions count in ``evictedCount()`` and are logged once until the
    ///     next delivery.
    ///   - maxEventAge: drop events older than this many seconds; `nil` keeps them.
    ///   - synchronous: `.normal` (default) survives the process ending in any way; `.full`
    ///     also survives a power cut, with an fsync per append (see ``Synchronous``).
    ///   - logger: receives the warnings (a damaged file replaced, unreadable rows).
    ///   - clock: the time `maxEventAge` and the send lease are measured against.
    ///   - sendLeaseDuration: how long a peek reserves sending for this process (default
    ///     ``defaultSendLeaseDuration``); matters only when processes share the file.
    /// - Throws: ``EventCacheError`` with the path when the directory or file cannot be
    ///   created or opened, or when it is damaged while another process has it open.
    public convenience init(
        fileURL: URL,
        limit: Int = 10_000,
        maxBytes: Int = SQLiteEventCache.defaultMaxBytes,
        maxEventAge: TimeInterval? = nil,
        synchronous: Synchronous = .normal,
        logger: any Logging = StandardErrorLogger(),
        clock: any TelemetryClock = SystemClock(),
        sendLeaseDuration: TimeInterval = SQLiteEventCache.defaultSendLeaseDuration
    ) throws {
        try self.init(
            fileURL: fileURL,
            limit: limit,
            maxBytes: maxBytes,
            maxEventAge: maxEventAge,
            synchronous: synchronous,
            logger: logger,
            clock: clock,
            sendLeaseDuration: sendLeaseDuration,
            leaseProcess: getpid()
        )
    }

    /// The initialiser, with the process the send lease is taken for: tests stand in for a
    /// second process with another (live or dead) process's id.
    package init(
        fileURL: URL,
        limit: Int = 10_000,
        maxBytes: Int = SQLiteEventCache.defaultMaxBytes,
        maxEventAge: TimeInterval? = nil,
        synchronous: Synchronous = .normal,
        logger: any Logging = StandardErrorLogger(),
        clock: any TelemetryClock = SystemClock(),
        sendLeaseDuration: TimeInterval = SQLiteEventCache.defaultSendLeaseDuration,
        leaseProcess: Int32,
        verificationDelay: Duration = SQLiteEventCache.verificationDelay
    ) throws {
        self.fileURL = fileURL
        self.sendLeaseDuration = max(0, sendLeaseDuration)
        leaseToken = withUnsafeBytes(of: UUID().uuid) { Array($0) }
        self.leaseProcess = leaseProcess
        self.limit = max(1, limit)
        self.maxBytes = max(1, maxBytes)
        self.maxEventAge = maxEventAge
        self.clock = clock
        pruneInterval = min(60, max(0, (maxEventAge ?? 0) / 10))
        let path = fileURL.path
        let openedAt = clock.now
        let database = try SQLiteDatabase(
            path: path,
            fullSync: synchronous == .full,
            limit: self.limit,
            maxBytes: self.maxBytes,
            maxEventAge: maxEventAge,
            logger: logger,
            now: openedAt
        )
        let journal = synchronous == .normal ? IntakeJournal<Event>(nextTo: path) : nil
        frame = database.framed(
            name: "SQLite event cache",
            path: path,
            limit: self.limit,
            maxBytes: self.maxBytes,
            logger: logger,
            journal: journal,
            whenIdle: { database in try database.run { try $0.restCompactly() } }
        )
        // First on the I/O queue, before any append: the events that instances which died
        // (kill -9, a crash) had left in their intake journals, older than any appended now.
        // Only then this instance's own journal: were it open sooner, an event awaited now
        // could be committed, or left in it by another kill, ahead of those older ones. If
        // they cannot be appended now, it stays closed (awaited events wait for their commits).
        frame.startOnIOQueue("prepare the intake journal of") { database in
            try database.appendAbandonedJournals(nextTo: path)
            try journal?.open()
        }
        // Checking the file and counting its rows read every page: not on the launch path,
        // and not ahead of the launch's appends either (see `SQLiteDatabase`).
        frame.startOnIOQueue("check", after: verificationDelay) { [opened] in
            try Self.verify(&$0, marking: opened)
        }
    }

    /// Returns once the work queued on the cache's I/O queue so far has run: the commits of
    /// journaled events included (for tests that change the file behind the cache's back).
    package func waitForQueuedWork() async {
        await frame.waitForQueuedWork()
    }

    /// Queues the check of the file (if it has not run) and returns once it has.
    private func verifyNow() async {
        frame.startOnIOQueue("check") { [opened] in try Self.verify(&$0, marking: opened) }
        await frame.waitForQueuedWork()
    }

    /// Runs the check of the file once (later calls return at once) and notes that it ran.
    private static func verify(_ database: inout SQLiteDatabase, marking opened: Locked<Bool>) throws {
        try database.verifyOpening()
        opened.set(true)
    }

    /// Appends `events` in one commit, shared with concurrent callers; in the log (and with
    /// ``Synchronous/full`` on the disk) when this returns.
    public func append(_ events: [Event]) async throws {
        try await frame.append(events)
    }

    /// ``append(_:)`` on the caller's executor. For a caller that waits (an awaited event),
    /// with ``Synchronous/normal``: the events are encoded and copied into the cache's intake
    /// journal there (a few microseconds, no I/O), which makes them survive a process kill,
    /// and the call returns; the commit follows on the cache's I/O queue (see
    /// ``IntakeJournal``). Otherwise it hands the events to that queue, which encodes the
    /// rows, commits and resumes the caller where it was (two thread hand-offs). The caller's
    /// thread is never blocked.
    nonisolated(nonsending) package func appendOnCallersExecutor(_ events: [Event], callerWaits: Bool) async throws {
        if callerWaits {
            try await frame.appendForWaitingCaller(events) { EventJSONCodec.encode($0, into: &$1) }
        } else {
            try await frame.append(events)
        }
    }

    public func peek(limit: Int) async throws -> [Event] {
        guard limit > 0 else { return [] }
        let now = clock.now
        let lease = SQLiteConnection.SendLease(
            token: leaseToken,
            processIdentifier: leaseProcess,
            now: SQLiteRow.milliseconds(now),
            expiresAt: SQLiteRow.milliseconds(now.addingTimeInterval(sendLeaseDuration))
        )
        return try await frame.read { [maxEventAge, pruneInterval, opened] database in
            try Self.verify(&database, marking: opened)
            var cutoff: Int64?
            if let maxEventAge, abs(now.timeIntervalSince(database.lastPrune)) >= pruneInterval {
                cutoff = SQLiteRow.milliseconds(now.addingTimeInterval(-maxEventAge))
            }
            let (pruned, read) = try database.run { connection in
                (
                    try cutoff.map { try connection.prune(receivedBefore: $0) } ?? 0,
                    try connection.oldest(limit, lease: lease)
                )
            }
            if cutoff != nil {
                database.evicted += pruned
                database.lastPrune = now
            }
            return read
        }
    }

    public func remove(ids: [UUID]) async throws {
        try await frame.remove(ids: ids)
    }

    /// The number of queued events, kept in memory; the first call runs the file's check
    /// (which counts them) if it has not run yet.
    public func count() async -> Int {
        if !opened.current { await verifyNow() }
        return frame.count
    }

    public func removeAll() async throws {
        try await frame.removeAll()
    }

    public func evictedCount() async -> Int {
        if !opened.current { await verifyNow() }
        return frame.evicted
    }

    /// SQLite's `PRAGMA synchronous` on the cache's connection (1 NORMAL, 2 FULL), for tests
    /// of ``Synchronous``: a commit's durability cannot be seen from outside the process.
    package var connectionSynchronousSetting: Int64? {
        frame.inspect { $0.connection.synchronousSetting }
    }

    /// How many times a damaged or unreadable file was moved aside and replaced by a fresh
    /// database, at opening or later.
    ///
    /// Recovery keeps the cache working without the app's help, so nothing fails visibly;
    /// this count (and the warning logged each time) is how an app or a test sees that it
    /// happened, for example to report failing storage.
    ///
    /// Until the check of the file has run, reading it runs the check and waits for it
    /// (blocking the caller's thread meanwhile).
    public var recoveredCorruptions: Int {
        if !opened.current {
            frame.startOnIOQueue("check") { [opened] in try Self.verify(&$0, marking: opened) }
            frame.waitForQueuedWorkBlocking()
        }
        return frame.inspect { $0.recoveredCorruptions }
    }
}

/// The database as the store of a ``CommittedEventCache``: every call recovers from a
/// damaged file (``SQLiteDatabase/run(_:)``).
extension SQLiteDatabase: CommittedEventStore {
    var count: Int { connection.count }

    /// Encodes `events` here, on the I/O queue (see ``SQLiteEventCache/append(_:)``), and
    /// inserts them in one transaction.
    mutating func append(_ events: [Event], limit: Int) throws -> Int {
        try insert(events.map(rowEncoder.row(for:)))
    }

    /// Appends the events that instances which ended before committing them (kill -9, a
    /// crash) left in their intake journals beside `cachePath`, those the database does not
    /// have yet (an owner may have committed some before it died), then deletes the journals.
    /// Entries that do not decode are dropped, counted in `evicted` and logged.
    ///
    /// Why the journals are looked for and locked inside the write transaction that appends
    /// their events: another instance opening at the same time (a relaunched app beside its
    /// extension) waits for that commit before it looks for journals or appends anything of
    /// its own. Were the journals taken first, it would find them locked, take them for a live
    /// instance's, and commit its new events ahead of the older ones being replayed: one
    /// process's events would then be sent out of order.
    mutating func appendAbandonedJournals(nextTo cachePath: String) throws {
        let (logger, rowEncoder, limit, maxBytes) = (logger, rowEncoder, limit, maxBytes)
        var journals: [AbandonedIntakeJournal] = []
        var unreadable: [(path: String, errors: [String])] = []
        var appended: [SQLiteRow] = []
        let evictedNow = try run { connection in
            try connection.holdingWriteLock { () throws(SQLiteFailure) -> Int in
                // A run again after a damaged file was replaced looks for the journals again,
                // once the earlier run's are released (still locked, they would be skipped).
                journals = []
                journals = AbandonedIntakeJournal.all(nextTo: cachePath, logger: logger)
                (unreadable, appended) = ([], [])
                var rows: [SQLiteRow] = []
                for journal in journals {
                    var errors: [String] = []
                    for entry in journal.entries {
                        do {
                            rows.append(rowEncoder.row(for: try EventJSONCodec.decode(entry)))
                        } catch {
                            errors.append("\(error)")
                        }
                    }
                    if !errors.isEmpty { unreadable.append((journal.path, errors)) }
                }
                appended = try connection.missing(rows)
                guard !appended.isEmpty else { return 0 }
                return try connection.insert(appended, limit: limit, maxBytes: maxBytes)
            }
        }
        for (path, errors) in unreadable {
            evicted += errors.count
            logger.warning(
                "Dropped \(errors.count) unreadable event(s) of the intake journal at \(path): "
                    + errors.prefix(3).joined(separator: "; ")
            )
        }
        evicted += evictedNow
        for journal in journals {
            journal.discard()
        }
        guard !appended.isEmpty else { return }
        logger.log(
            .info,
            "Appended \(appended.count) event(s) that instances which ended before committing them had left in "
                + "the intake journal(s) at \(journals.map(\.path).joined(separator: ", "))."
        )
        try keepUntilVerified(appended)
    }

    mutating func remove(ids: [UUID]) throws {
        _ = try run { try $0.remove(ids: ids) }
        forgetRowsSinceOpening(ids: ids)
    }

    mutating func removeAll() throws {
        try run { try $0.removeAll() }
        forgetRowsSinceOpening(ids: nil)
    }
}
