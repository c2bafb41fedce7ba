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
/// Opening runs on the cache's own I/O queue, as its first job: the initialiser creates the
/// directory and the file and returns, and every call waits behind the opening. Opening
/// checks every page (`PRAGMA quick_check`), converts a file of an earlier format, and imports
/// what an earlier version left in intake journals beside it. When opening fails, the calls
/// fail with its error, and each tries to open again.
///
/// A damaged file is recovered from, not kept failing: the check at opening finds damage
/// that is already there, and damage that SQLite reports later (an append, a peek, a removal)
/// is handled there. The file is moved aside with a `.corrupt` suffix (numbered when an older
/// copy exists) for inspection, the events still readable from it go into a fresh database,
/// and the call that met the damage runs again on it, so the events being appended are kept.
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
public final class SQLiteEventCache: EventCaching {
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
    ///   created. What fails later, on the cache's I/O queue (a file that cannot be opened, or
    ///   is damaged while another process has it open), fails the calls, and ``opened()``
    ///   reports it.
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
        leaseProcess: Int32
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
        try SQLiteDatabase.prepareFile(atPath: path)
        let (limit, maxBytes) = (self.limit, self.maxBytes)
        frame = CommittedEventCache(
            opening: {
                try SQLiteDatabase(
                    path: path,
                    fullSync: synchronous == .full,
                    limit: limit,
                    maxBytes: maxBytes,
                    maxEventAge: maxEventAge,
                    logger: logger,
                    // When it opens: an opening tried again later measures ages from then.
                    now: clock.now
                )
            },
            name: "SQLite event cache",
            path: path,
            limit: limit,
            maxBytes: maxBytes,
            logger: logger,
            whenIdle: { database in try database.run { try $0.restCompactly() } }
        )
    }

    /// Returns once the file is open (see the type's description), or throws the
    /// ``EventCacheError`` that stopped the opening. `Telemetry.initialize` asks it before it
    /// reports the SDK started.
    public func opened() async throws {
        try await frame.opened()
    }

    /// Returns once the work queued on the cache's I/O queue so far has run (for tests that
    /// change the file behind the cache's back).
    package func waitForQueuedWork() async {
        await frame.waitForQueuedWork()
    }

    /// Appends `events` in one commit, shared with concurrent callers; in the log (and with
    /// ``Synchronous/full`` on the disk) when this returns.
    ///
    /// On the caller's executor up to the hand-off to the I/O queue, which encodes the rows,
    /// commits, and resumes the caller where it was: two thread hand-offs, and the caller's
    /// thread is never blocked.
    nonisolated(nonsending) public func append(_ events: [Event]) async throws {
        try await frame.append(events)
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
        return try await frame.read { [maxEventAge, pruneInterval] database in
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

    /// The number of queued events, kept in memory; once the file is open (0 if it cannot be).
    public func count() async -> Int {
        try? await frame.opened()
        return frame.count
    }

    public func removeAll() async throws {
        try await frame.removeAll()
    }

    public func evictedCount() async -> Int {
        try? await frame.opened()
        return frame.evicted
    }

    /// SQLite's `PRAGMA synchronous` on the cache's connection (1 NORMAL, 2 FULL), for tests
    /// of ``Synchronous``: a commit's durability cannot be seen from outside the process.
    package var connectionSynchronousSetting: Int64? {
        frame.inspectOnceOpened { $0.connection.synchronousSetting } ?? nil
    }

    /// How many times a damaged or unreadable file was moved aside and replaced by a fresh
    /// database, at opening or later.
    ///
    /// Recovery keeps the cache working without the app's help, so nothing fails visibly;
    /// this count (and the warning logged each time) is how an app or a test sees that it
    /// happened, for example to report failing storage.
    ///
    /// Until the file is open, reading it waits for the opening (blocking the caller's thread
    /// meanwhile), so that it includes what the opening found.
    public var recoveredCorruptions: Int {
        frame.inspectOnceOpened { $0.recoveredCorruptions } ?? 0
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

    mutating func remove(ids: [UUID]) throws {
        _ = try run { try $0.remove(ids: ids) }
    }

    mutating func removeAll() throws {
        try run { try $0.removeAll() }
    }
}
