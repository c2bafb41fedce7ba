import TelemetryKit
import TelemetryKitCacheSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The cache's database file and its connection, replaced by a fresh database when the file
/// turns out to be damaged.
///
/// SQLite reports damage (SQLITE_CORRUPT, SQLITE_NOTADB) only when a statement reads a broken
/// page, and then on every later statement that reads it: left alone, a broken index fails
/// every append (new events are lost) or every removal (the same batch is sent forever). So
/// every operation runs through ``run(_:)``, which on damage:
///
/// 1. closes the connection (SQLite checkpoints what it still can into the file),
/// 2. moves the file and its `-wal`/`-shm` aside to ``corruptCopyPath(for:)`` for inspection,
/// 3. reads what rows it can from that copy (a broken index or `sqlite_sequence` page loses
///    nothing; a broken table page loses the rows from there on),
/// 4. creates an empty database, writes those rows into it,
/// 5. runs the operation again on it, so the events being appended are kept,
/// 6. logs one warning with both paths and counts the recovery.
///
/// Opening checks the whole file (`PRAGMA quick_check`) and recovers the same way; it runs on
/// the cache's I/O queue as its first job (see `SQLiteEventCache`), so no append or read
/// meets a file that was not checked. The check reads one snapshot of the file (WAL mode: a
/// reader sees the last commit before it started, never a half-written one), so another
/// process appending meanwhile does not make it report damage.
///
/// Other processes may have the file open (an app and its extensions share the queue). Moving
/// the file aside under them would leave them writing to the copy, and their events would be
/// lost. So every instance holds a shared `flock` on `<file>.lock` while it has the file open,
/// and replacing the file needs that lock exclusively: when another process holds it, the
/// damaged file stays, the call fails with an ``EventCacheError`` saying so, and a later call
/// (in whichever process is then alone with the file) recovers.
///
/// Not thread-safe: `SQLiteEventCache` keeps it inside its lock.
struct SQLiteDatabase {
    let path: String
    let fullSync: Bool
    /// The cache's limit, applied to the rows salvaged from a damaged file.
    let limit: Int
    /// The most bytes of event data kept (``SQLiteConnection/storedBytes``).
    let maxBytes: Int
    let logger: any Logging
    /// Held shared while the file is open; exclusively while the file is replaced.
    let fileLock: SidecarFileLock
    /// Encodes appended events into rows, reusing the last context's JSON (used on the I/O
    /// queue, under the cache's lock).
    let rowEncoder = SQLiteRowEncoder()
    private(set) var connection: SQLiteConnection
    /// Damaged or unusable files replaced so far, at opening and later.
    private(set) var recoveredCorruptions = 0
    /// Events evicted so far (limit, maximum age, salvaged rows beyond the limit).
    var evicted = 0
    var lastPrune: Date
    /// Events older than this (seconds) are dropped when the file is opened.
    let maxEventAge: TimeInterval?

    /// Opens or creates the database; replaces a file that is damaged or holds another schema;
    /// checks every page, drops events older than `maxEventAge` and evicts beyond the limits;
    /// then imports what an earlier version left in intake journals (``appendAbandonedJournals(nextTo:)``).
    /// Blocking file work: the cache runs it on its I/O queue.
    init(
        path: String,
        fullSync: Bool,
        limit: Int,
        maxBytes: Int,
        maxEventAge: TimeInterval? = nil,
        logger: any Logging,
        now: Date
    ) throws {
        self.path = path
        self.fullSync = fullSync
        self.limit = limit
        self.maxBytes = maxBytes
        self.maxEventAge = maxEventAge
        self.logger = logger
        lastPrune = now
        try Self.prepareFile(atPath: path)
        do {
            fileLock = try SidecarFileLock(path: path + ".lock")
            // Waits only while another process replaces a damaged file.
            try fileLock.lock(.shared)
        } catch {
            throw EventCacheError("Cannot lock the SQLite event cache: \(error)", path: path)
        }
        let (connection, replacement) = try Self.openOrReplace(
            path,
            fullSync: fullSync,
            limit: limit,
            verify: false,
            lock: fileLock
        )
        self.connection = connection
        if let replacement { adopt(replacement) }
        if connection.droppedByUpgrade > 0 {
            evicted += connection.droppedByUpgrade
            logger.warning(
                "Dropped \(connection.droppedByUpgrade) unreadable event(s) while converting the SQLite event cache "
                    + "at \(path) to the current format."
            )
        }
        try check(now: now)
        try appendAbandonedJournals(nextTo: path)
    }

    /// Runs `body` on the connection; when it meets a damaged file, replaces the file (see the
    /// type's description) and runs `body` once more on the fresh database.
    ///
    /// - Throws: the failure of `body` that is not damage, the failure of the second run, or
    ///   what stopped the recovery (the next call tries again).
    mutating func run<Result>(_ body: (SQLiteConnection) throws -> Result) throws -> Result {
        if connection.isClosed {
            // An earlier recovery stopped half-way (the disk was full, say): finish it now.
            let (connection, replacement) = try Self.openOrReplace(
                path,
                fullSync: fullSync,
                limit: limit,
                verify: true,
                lock: fileLock
            )
            self.connection = connection
            if let replacement { adopt(replacement) }
        }
        do {
            return try body(connection)
        } catch let failure as SQLiteFailure where failure.meansDamage {
            let (path, fullSync, limit, connection) = (path, fullSync, limit, connection)
            adopt(
                try Self.alone(with: fileLock, path: path, cause: failure) {
                    connection.close()
                    return try Self.replace(path, cause: failure, fullSync: fullSync, limit: limit)
                }
            )
            return try body(self.connection)
        }
    }

    /// Inserts `rows` in one transaction (evicting beyond the limits); returns how many it
    /// evicted.
    mutating func insert(_ rows: [SQLiteRow]) throws -> Int {
        let (limit, maxBytes) = (limit, maxBytes)
        return try run { try $0.insert(rows, limit: limit, maxBytes: maxBytes) }
    }

    /// What opening does after the file opened (see the type's description): checks every
    /// page (a damaged file is replaced here, before any read), counts the rows, drops events
    /// older than `maxEventAge` and evicts beyond the limits.
    private mutating func check(now: Date) throws {
        let (limit, maxBytes, maxEventAge) = (limit, maxBytes, maxEventAge)
        // Another instance has the file open (it holds the shared lock too): keep the counts
        // in the file for it from the first change on.
        switch try? fileLock.exclusiveIfAlone() {
        case true?: try? fileLock.share()
        case false?, nil: connection.noteSharedFile()
        }
        evicted += try run { connection in
            if !connection.isVerified { try connection.verify() }
            var evicted = 0
            if let maxEventAge, connection.count > 0 {
                evicted += try connection.prune(
                    receivedBefore: SQLiteRow.milliseconds(now.addingTimeInterval(-maxEventAge))
                )
            }
            return evicted + (try connection.enforce(limit: limit, maxBytes: maxBytes))
        }
    }

    // MARK: Replacing a damaged file

    private struct Replacement {
        var connection: SQLiteConnection
        var cause: SQLiteFailure
        var asidePath: String
        var salvaged: Int
        var evicted: Int
        var salvageStoppedBy: SQLiteFailure?
    }

    private mutating func adopt(_ replacement: Replacement) {
        connection = replacement.connection
        evicted += replacement.evicted
        recoveredCorruptions += 1
        let kept: String
        switch (replacement.salvaged, replacement.salvageStoppedBy) {
        case (0, .some):
            kept = "none of its events could be read"
        case (let count, .some(let stop)):
            kept = "kept the \(count) event(s) read before the damage (\(stop))"
        case (let count, .none):
            kept = "kept its \(count) event(s)"
        }
        logger.warning(
            "The SQLite event cache at \(path) was damaged or unreadable (\(replacement.cause)); moved it to "
                + "\(replacement.asidePath) and started a fresh database; \(kept)."
        )
    }

    /// Opens the file, or replaces it when it cannot hold the cache.
    private static func openOrReplace(
        _ path: String,
        fullSync: Bool,
        limit: Int,
        verify: Bool,
        lock: SidecarFileLock
    ) throws -> (SQLiteConnection, Replacement?) {
        try prepareFile(atPath: path)
        do {
            return (try SQLiteConnection(path: path, fullSync: fullSync, verify: verify), nil)
        } catch let failure where failure.meansUnusableFile {
            do {
                let replacement = try alone(with: lock, path: path, cause: failure) {
                    try replace(path, cause: failure, fullSync: fullSync, limit: limit)
                }
                return (replacement.connection, replacement)
            } catch let inUse as FileInUse {
                throw EventCacheError("Cannot open the SQLite event cache: \(inUse)", path: path)
            }
        } catch {
            throw EventCacheError("Cannot open the SQLite event cache: \(error)", path: path)
        }
    }

    /// Runs `body` (the replacement of the damaged file) only if no other instance has the
    /// file open: with `lock` held exclusively, taken without waiting, then shared again.
    ///
    /// - Throws: ``FileInUse`` when another process (or instance) has the file open; an
    ///   ``EventCacheError`` when the lock itself fails.
    private static func alone<Result>(
        with lock: SidecarFileLock,
        path: String,
        cause: SQLiteFailure,
        _ body: () throws -> Result
    ) throws -> Result {
        let alone: Bool
        do {
            alone = try lock.exclusiveIfAlone()
        } catch {
            throw EventCacheError("Cannot lock the damaged SQLite event cache to replace it: \(error)", path: path)
        }
        guard alone else { throw FileInUse(cause: cause) }
        defer { _ = try? lock.share() }
        return try body()
    }

    /// The file is damaged, but another instance has it open (see ``alone(with:path:cause:_:)``).
    struct FileInUse: Error, CustomStringConvertible {
        var cause: SQLiteFailure

        var description: String {
            "the file is damaged or unreadable (\(cause)), and another process has it open: it stays in place "
                + "until this process is the only one using it (the next call tries again)"
        }
    }

    /// Moves the (closed) file aside, creates an empty database and writes into it the rows
    /// that can still be read from the copy.
    private static func replace(
        _ path: String,
        cause: SQLiteFailure,
        fullSync: Bool,
        limit: Int
    ) throws -> Replacement {
        let asidePath = corruptCopyPath(for: path)
        try moveAside(path, to: asidePath)
        let salvage = SQLiteConnection.salvage(path: asidePath)
        try prepareFile(atPath: path)
        let connection: SQLiteConnection
        var evicted = 0
        do {
            connection = try SQLiteConnection(path: path, fullSync: fullSync, verify: true)
            if !salvage.rows.isEmpty {
                evicted = try connection.insert(salvage.rows, limit: limit)
            }
        } catch {
            throw EventCacheError(
                "Cannot create a fresh SQLite event cache after moving the damaged file to \(asidePath): \(error)",
                path: path
            )
        }
        return Replacement(
            connection: connection,
            cause: cause,
            asidePath: asidePath,
            salvaged: salvage.rows.count,
            evicted: evicted,
            salvageStoppedBy: salvage.stoppedBy
        )
    }

    /// Creates the directory and, with mode 0600, the file (SQLite gives its `-wal` and `-shm`
    /// files the database's mode).
    static func prepareFile(atPath path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw EventCacheError("Cannot create the directory of the SQLite event cache: \(error)", path: directory)
        }
        let descriptor = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw EventCacheError("Cannot create the SQLite event cache file: \(systemErrorDescription())", path: path)
        }
        close(descriptor)
    }

    /// Moves a damaged database and its `-wal` and `-shm` files to `asidePath` (plus suffix).
    private static func moveAside(_ path: String, to asidePath: String) throws {
        guard rename(path, asidePath) == 0 else {
            throw EventCacheError(
                "Cannot move the damaged SQLite event cache aside: \(systemErrorDescription())",
                path: path
            )
        }
        for suffix in ["-wal", "-shm"] {
            unlink(asidePath + suffix)
            if rename(path + suffix, asidePath + suffix) != 0 {
                unlink(path + suffix)
            }
        }
    }
}
