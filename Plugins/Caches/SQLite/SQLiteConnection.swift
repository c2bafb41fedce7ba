import TelemetryKit
import TelemetryKitSupport

#if canImport(SQLite3)
import SQLite3
#else
import CSQLite
#endif

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

/// The cache's single SQLite connection and its prepared statements.
///
/// One file per concern: this one opens the file and creates the schema;
/// `+Events` appends, evicts, reads and removes events; `+SendLease` shares the file with
/// other processes; `+Recovery` checks the file and salvages a damaged one; `+Upgrade`
/// converts earlier formats; `+Statements` holds the statement, binding and transaction
/// helpers.
///
/// Not thread-safe: `SQLiteEventCache` only touches it inside its lock.
final class SQLiteConnection {
    let db: OpaquePointer
    var statements: [OpaquePointer] = []
    /// Prepared ``Statement``s by raw value (nil: not used yet).
    var lazyStatements = [OpaquePointer?](repeating: nil, count: Statement.allCases.count)
    var begin: OpaquePointer?
    var commit: OpaquePointer?
    var rollback: OpaquePointer?
    var insert: OpaquePointer?
    /// The ids and row bytes of one chunk, side by side: bound without a copy, so they must
    /// stay in place until the chunk's step (kept between appends for its capacity).
    var chunkBytes: [UInt8] = []
    /// The context ids of one chunk's rows (kept between appends for its capacity).
    var chunkContextIDs: [Int64] = []
    var insertContext: OpaquePointer?
    var selectContext: OpaquePointer?
    let fullSync: Bool
    /// The stored contexts with their hashes, loaded on the first append (a handful: the
    /// queue's sessions), so an append finds its context's id without a query.
    ///
    /// A list searched by hash, not a dictionary: it is short (the clean-up keeps it under
    /// twice what the queue refers to), and a dictionary type's first use costs a search of
    /// the runtime's conformance tables inside the first append of a
    /// launch, which `Telemetry.initialize` waits for.
    var contextIDs: [(hash: UInt64, id: Int64, json: [UInt8])]?
    /// Contexts decoded for reads, by id: each is decoded once and its metadata dictionary is
    /// shared by every event read with it.
    var decodedContexts: [Int64: SQLiteContext.Decoded] = [:]
    /// The number of stored contexts after the last clean-up of unreferenced ones.
    var contextsAfterCleanUp = 0
    /// Events of an earlier format that could not be converted when the file was upgraded.
    var droppedByUpgrade = 0
    /// The ids and sequence numbers of the last `oldest` read, oldest first: removing a prefix
    /// of them (the dispatcher's case) is one range delete instead of one lookup per id.
    var lastRead: (ids: [UUID], sequences: [Int64]) = ([], [])
    /// The number of rows, kept in step with every write of this connection, and read from the
    /// `totals` row when another connection (another process) wrote since (see
    /// ``syncWithOtherConnections()``).
    var count = 0
    /// The bytes of the events' own data (see ``storedSize(ofJSON:)``), kept in step like `count`.
    var storedBytes = 0
    var dataVersion: OpaquePointer?
    var selectTotals: OpaquePointer?
    var writeTotals: OpaquePointer?
    var selectLease: OpaquePointer?
    /// `PRAGMA data_version` when this connection last looked: it changes when another
    /// connection commits, and only then must the counts and cached contexts be read again.
    var knownDataVersion: Int64?
    /// Inside ``transaction(_:)``: nested calls run in the open transaction.
    var inTransaction = false
    /// Whether another connection (process) uses the file: only then does a transaction that
    /// writes store the counts in the `totals` row (one more page written per commit, which a
    /// process alone with its file does not pay). Set when the file was shared at opening
    /// (``noteSharedFile()``) or another connection's commit is seen, and kept.
    var sharesFile = false
    /// The `totals` row's stamp as this connection last read or wrote it: every write of the
    /// row increments it, so a commit by another connection that left it unchanged came from
    /// one that does not keep the row (alone until then, or a tool), and the rows are counted.
    var knownTotalsStamp: Int64 = -1
    /// The send lease this connection holds (see ``SendLease``) and the last row it covers:
    /// released once no row up to there is left.
    var heldLease: (token: [UInt8], through: Int64)?

    /// What an event counts against the byte limit: its row's own part and its fixed columns.
    /// The context it shares with other events is stored once and not counted.
    static func storedSize(ofJSON length: Int) -> Int { length + 32 }

    /// The format: events refer to their context (see ``SQLiteContext``), stored once per
    /// distinct value; `json` holds only what is the event's own (see ``SQLiteRow``).
    /// Version 1 kept each event's whole JSON in `json` (about 2 KB with the default
    /// processors' metadata) and is converted on opening.
    static let schema = """
        CREATE TABLE IF NOT EXISTS contexts (
            id INTEGER PRIMARY KEY,
            json BLOB NOT NULL
        );
        CREATE TABLE IF NOT EXISTS events (
            seq INTEGER PRIMARY KEY AUTOINCREMENT,
            id BLOB NOT NULL,
            received_at INTEGER NOT NULL,
            context INTEGER NOT NULL,
            json BLOB NOT NULL
        );
        CREATE INDEX IF NOT EXISTS events_id ON events(id);
        PRAGMA user_version = 2;
        """
    static let formatVersion: Int64 = 2

    /// What processes sharing the file need, added to format 2 files without changing their
    /// version (a build without these tables ignores them): the queue's totals, so that a
    /// connection learns another's changes without counting every row, and the send lease.
    static let sharingSchema = """
        CREATE TABLE IF NOT EXISTS totals (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            count INTEGER NOT NULL,
            bytes INTEGER NOT NULL,
            stamp INTEGER NOT NULL
        );
        CREATE TABLE IF NOT EXISTS send_lease (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            token BLOB NOT NULL,
            pid INTEGER NOT NULL,
            expires_at INTEGER NOT NULL
        );
        """

    /// Whether ``verify()`` ran: until then ``count`` is unknown.
    var isVerified = false
    /// How long a statement waits for another connection's lock before it fails.
    static let busyTimeoutMilliseconds: Int32 = 5000

    /// The file had no tables: this connection created the schema (nothing to check).
    var isNew = false

    /// Opens (or creates) the database in WAL mode and prepares the statements, reading no
    /// more of the file than its schema: the check of every page and the count come with
    /// ``verify()`` (at once when `verify` is true).
    init(path: String, fullSync: Bool, verify: Bool) throws(SQLiteFailure) {
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let result = sqlite3_open_v2(path, &handle, flags, nil)
        guard result == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            sqlite3_close_v2(handle)
            throw SQLiteFailure(code: result, message: message)
        }
        db = handle
        self.fullSync = fullSync
        do throws(SQLiteFailure) {
            sqlite3_busy_timeout(db, Self.busyTimeoutMilliseconds)
            // A file that has no page yet (the app's first launch) holds nothing to protect:
            // it is turned into a WAL database and given its tables without an fsync. At the
            // default setting that costs four syncs of a rollback journal, the file and its
            // folder, then one of the new log's header: over a millisecond of the launch on
            // an SSD, more on a phone. A power cut in between leaves an empty file, or one that
            // the opening check finds damaged and replaces: either way no event was in it.
            let creating = try queryInt("PRAGMA page_count") == 0
            let asked = Self.synchronousPragma(fullSync: fullSync)
            try execute(creating ? "PRAGMA synchronous = OFF" : asked)
            let mode = try Self.retryingWhileBusy { () throws(SQLiteFailure) in
                try queryText("PRAGMA journal_mode = WAL")
            }
            guard mode?.lowercased() == "wal" else {
                throw SQLiteFailure(
                    code: SQLITE_CANTOPEN,
                    message: "WAL journal mode unavailable (got \(mode ?? "nothing"))"
                )
            }
            // Debian and others build SQLite with secure delete on, which overwrites every
            // deleted row (sent events) with zeros in extra page writes. FAST still zeroes what
            // it can without extra I/O; delivered events need no more than that.
            try execute("PRAGMA secure_delete = FAST")
            // While writes go on without a pause (when the cache checkpoints, see
            // `restCompactly()`), SQLite's own checkpoints reuse the log; this caps what the
            // log keeps after one.
            try execute("PRAGMA journal_size_limit = 1048576")
            let version = try queryInt("PRAGMA user_version")
            guard version <= Self.formatVersion else {
                throw SQLiteFailure(code: SQLITE_ERROR, message: "format \(version) is newer than this cache's")
            }
            if version == 1 {
                // Converting reads every row anyway; check the pages first (see `verify()`).
                try quickCheck()
            }
            let format1Events = version == 1 ? try readFormat1() : nil
            if format1Events != nil {
                try execute("BEGIN IMMEDIATE; DROP TABLE events;")
            } else if version == 0 {
                // Before the first table: lets a clean-up give freed pages back to the system.
                try execute("PRAGMA auto_vacuum = INCREMENTAL")
                isNew = true
            }
            // A new file gets its tables in one transaction: alone, each statement is a commit
            // of its own (log frames and lock round trips), seven of them in a launch.
            var createdEmpty = false
            var createdAtDataVersion: Int64 = 0
            if isNew {
                try execute("BEGIN IMMEDIATE")
            }
            if version != Self.formatVersion {
                try execute(Self.schema)
            }
            try execute(Self.sharingSchema)
            if isNew {
                // With the tables, the totals of an empty queue: the opening check then has
                // nothing to read or count. Unless another connection made the tables first
                // (then its row stays, and the check runs as for any file).
                try execute("INSERT OR IGNORE INTO totals (id, count, bytes, stamp) VALUES (1, 0, 0, 1)")
                createdEmpty = sqlite3_changes(db) == 1
                // Read under the write lock: a commit of another connection between ours and a
                // later read would be taken for part of the empty queue, and never counted.
                createdAtDataVersion = try queryInt("PRAGMA data_version")
                try execute("COMMIT")
            }
            if creating {
                try execute(asked)
            }
            begin = try prepare("BEGIN IMMEDIATE")
            commit = try prepare("COMMIT")
            rollback = try prepare("ROLLBACK")
            // `OR FAIL`, not the default `ABORT`: a multi-row insert that could abort halfway
            // makes SQLite copy every page it changes into a statement journal first (a temporary
            // file: about four page writes per event in a burst), to undo the statement alone. A failure
            // rolls back the whole transaction here anyway (`transaction(_:)`).
            insert = try prepare("INSERT OR FAIL INTO events (id, received_at, context, json) VALUES (?1, ?2, ?3, ?4)")
            insertContext = try prepare("INSERT INTO contexts (json) VALUES (?1)")
            selectContext = try prepare("SELECT json FROM contexts WHERE id = ?1")
            dataVersion = try prepare("PRAGMA data_version")
            selectTotals = try prepare("SELECT count, bytes, stamp FROM totals WHERE id = 1")
            writeTotals = try prepare(
                "INSERT OR REPLACE INTO totals (id, count, bytes, stamp) "
                    + "VALUES (1, ?1, ?2, COALESCE((SELECT stamp FROM totals WHERE id = 1), 0) + 1) RETURNING stamp"
            )
            selectLease = try prepare("SELECT token, pid, expires_at FROM send_lease WHERE id = 1")
            if createdEmpty {
                // Verified as it is: empty, its totals stored, and what another connection
                // commits from now on is seen (`syncWithOtherConnections()`).
                knownDataVersion = createdAtDataVersion
                knownTotalsStamp = 1
                isVerified = true
            }
            if let format1Events {
                try upgrade(format1Events)
            }
            if verify {
                try self.verify()
            }
        } catch {
            close()
            throw error
        }
    }

    deinit {
        close()
    }

    var isClosed = false

    /// Closes the database; every later operation fails with SQLITE_MISUSE. As the file's last
    /// connection, SQLite checkpoints the WAL into the file first (as far as it can).
    func close() {
        guard !isClosed else { return }
        // Best effort: another process need not wait for the lease to expire.
        if let heldLease, let deleteLease = try? statement(.deleteLease),
            (try? bindBlob(heldLease.token, to: deleteLease, at: 1)) != nil
        {
            _ = sqlite3_step(deleteLease)
            sqlite3_reset(deleteLease)
        }
        heldLease = nil
        isClosed = true
        for statement in statements { sqlite3_finalize(statement) }
        statements = []
        lazyStatements = lazyStatements.map { _ in nil }
        begin = nil
        commit = nil
        rollback = nil
        insert = nil
        insertContext = nil
        selectContext = nil
        dataVersion = nil
        selectTotals = nil
        writeTotals = nil
        selectLease = nil
        contextIDs = nil
        decodedContexts = [:]
        lastRead = ([], [])
        count = 0
        sqlite3_close_v2(db)
    }
}

extension String {
    /// SQLite's multi-line reports on one log line.
    func replacingNewlines() -> String {
        split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
