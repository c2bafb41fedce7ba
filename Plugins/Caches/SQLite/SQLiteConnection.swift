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

/// A failed SQLite call: the result code and SQLite's message.
struct SQLiteFailure: Error, CustomStringConvertible {
    var code: Int32
    var message: String

    /// The file is damaged or not a database at all (SQLITE_CORRUPT, SQLITE_NOTADB): every
    /// later call that touches the damaged pages fails the same way, so the file is replaced.
    var meansDamage: Bool {
        let primary = code & 0xFF
        return primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB
    }

    /// When opening: damaged, or a database of another schema (SQLITE_ERROR from the schema
    /// statements). Either way the file cannot hold the cache: replace it.
    var meansUnusableFile: Bool {
        meansDamage || code & 0xFF == SQLITE_ERROR
    }

    var description: String { "\(message) (SQLite result code \(code))" }
}

/// SQLite copies bound bytes (SQLITE_TRANSIENT, a macro Swift does not import).
private let transientDestructor = unsafeBitCast(OpaquePointer(bitPattern: -1), to: sqlite3_destructor_type.self)

/// The cache's single SQLite connection and its prepared statements.
///
/// Not thread-safe: `SQLiteEventCache` only touches it inside its lock.
final class SQLiteConnection {
    private let db: OpaquePointer
    private var statements: [OpaquePointer] = []
    private var begin: OpaquePointer?
    private var commit: OpaquePointer?
    private var rollback: OpaquePointer?
    private var insert: OpaquePointer?
    /// The ids and row bytes of one chunk, side by side: bound without a copy, so they must
    /// stay in place until the chunk's step (kept between appends for its capacity).
    private var chunkBytes: [UInt8] = []
    /// The context ids of one chunk's rows (kept between appends for its capacity).
    private var chunkContextIDs: [Int64] = []
    private var insertContext: OpaquePointer?
    private var selectContext: OpaquePointer?
    private let fullSync: Bool
    /// The stored contexts with their hashes, loaded on the first append (a handful: the
    /// queue's sessions), so an append finds its context's id without a query.
    ///
    /// A list searched by hash, not a dictionary: it is short (the clean-up keeps it under
    /// twice what the queue refers to), and a dictionary type's first use costs a search of
    /// the runtime's conformance tables inside the first append of a
    /// launch, which `Telemetry.initialize` waits for.
    private var contextIDs: [(hash: UInt64, id: Int64, json: [UInt8])]?
    /// Contexts decoded for reads, by id: each is decoded once and its metadata dictionary is
    /// shared by every event read with it.
    private var decodedContexts: [Int64: SQLiteContext.Decoded] = [:]
    /// The number of stored contexts after the last clean-up of unreferenced ones.
    private var contextsAfterCleanUp = 0
    /// Events of an earlier format that could not be converted when the file was upgraded.
    private(set) var droppedByUpgrade = 0
    /// The ids and sequence numbers of the last `oldest` read, oldest first: removing a prefix
    /// of them (the dispatcher's case) is one range delete instead of one lookup per id.
    private var lastRead: (ids: [UUID], sequences: [Int64]) = ([], [])
    /// The number of rows, kept in step with every write of this connection, and read from the
    /// `totals` row when another connection (another process) wrote since (see
    /// ``syncWithOtherConnections()``).
    private(set) var count = 0
    /// The bytes of the events' own data (see ``storedSize(ofJSON:)``), kept in step like `count`.
    private(set) var storedBytes = 0
    private var dataVersion: OpaquePointer?
    private var selectTotals: OpaquePointer?
    private var writeTotals: OpaquePointer?
    private var selectLease: OpaquePointer?
    /// `PRAGMA data_version` when this connection last looked: it changes when another
    /// connection commits, and only then must the counts and cached contexts be read again.
    private var knownDataVersion: Int64?
    /// Inside ``transaction(_:)``: nested calls run in the open transaction.
    private var inTransaction = false
    /// Whether another connection (process) uses the file: only then does a transaction that
    /// writes store the counts in the `totals` row (one more page written per commit, which a
    /// process alone with its file does not pay). Set when the file was shared at opening
    /// (``noteSharedFile()``) or another connection's commit is seen, and kept.
    private(set) var sharesFile = false
    /// The `totals` row's stamp as this connection last read or wrote it: every write of the
    /// row increments it, so a commit by another connection that left it unchanged came from
    /// one that does not keep the row (alone until then, or a tool), and the rows are counted.
    private var knownTotalsStamp: Int64 = -1
    /// The send lease this connection holds (see ``SendLease``) and the last row it covers:
    /// released once no row up to there is left.
    private var heldLease: (token: [UInt8], through: Int64)?

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
    private(set) var isVerified = false
    /// How long a statement waits for another connection's lock before it fails.
    static let busyTimeoutMilliseconds: Int32 = 5000

    /// The file had no tables: this connection created the schema (nothing to check).
    private(set) var isNew = false

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
                knownDataVersion = try queryInt("PRAGMA data_version")
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

    private(set) var isClosed = false

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

    /// Checks every page of the file and counts the rows: what opening must know before the
    /// first append or read, done off the launch path (the cache's first job on its queue).
    ///
    /// Reads every page once. Counting rows only walks the table: a damaged index or
    /// sqlite_sequence page would pass, and then fail every later append or removal.
    ///
    /// The count is taken, and written to the `totals` row, under the write lock: no other
    /// process changes the rows in between.
    func verify() throws(SQLiteFailure) {
        try quickCheck()
        try transaction { () throws(SQLiteFailure) in
            try countRows()
            try storeTotals()
        }
        isVerified = true
    }

    /// Says that another instance has the file open: from now on the counts are stored with
    /// every change (see ``sharesFile``).
    func noteSharedFile() {
        sharesFile = true
    }

    /// Counts the rows and their bytes (reads the whole table).
    private func countRows() throws(SQLiteFailure) {
        count = Int(try queryInt("SELECT COUNT(*) FROM events"))
        storedBytes = count * Self.storedSize(ofJSON: 0) + Int(try queryInt("SELECT TOTAL(length(json)) FROM events"))
    }

    /// `PRAGMA quick_check`: every page's structure, without matching indexes to the table.
    private func quickCheck() throws(SQLiteFailure) {
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(db, "PRAGMA quick_check(5)", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard prepared == SQLITE_OK, let statement else { throw failure(prepared) }
        var problems: [String] = []
        while true {
            let result = sqlite3_step(statement)
            if result == SQLITE_DONE { break }
            guard result == SQLITE_ROW else { throw failure(result) }
            if let text = sqlite3_column_text(statement, 0) { problems.append(String(cString: text)) }
        }
        guard problems != ["ok"] else { return }
        throw SQLiteFailure(
            code: SQLITE_CORRUPT,
            message: "quick_check: " + problems.joined(separator: "; ").replacingNewlines()
        )
    }

    // MARK: Earlier formats

    /// The events of a version 1 file (each row the event's whole JSON), oldest first; rows
    /// that do not decode are counted in ``droppedByUpgrade``.
    private func readFormat1() throws(SQLiteFailure) -> [Event] {
        let (events, unreadable) = Self.readFormat1(db)
        if let failure = unreadable.stoppedBy { throw failure }
        droppedByUpgrade = unreadable.undecodable
        return events
    }

    private static func readFormat1(
        _ db: OpaquePointer
    ) -> ([Event], (undecodable: Int, stoppedBy: SQLiteFailure?)) {
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(db, "SELECT json FROM events ORDER BY seq", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard prepared == SQLITE_OK, let statement else {
            return ([], (0, SQLiteFailure(code: prepared, message: String(cString: sqlite3_errmsg(db)))))
        }
        var events: [Event] = []
        var undecodable = 0
        while true {
            let result = sqlite3_step(statement)
            if result == SQLITE_DONE { return (events, (undecodable, nil)) }
            guard result == SQLITE_ROW else {
                return (
                    events, (undecodable, SQLiteFailure(code: result, message: String(cString: sqlite3_errmsg(db))))
                )
            }
            let length = Int(sqlite3_column_bytes(statement, 0))
            let json = UnsafeRawBufferPointer(start: sqlite3_column_text(statement, 0), count: length)
            if let event = try? EventJSONCodec.decode(json) {
                events.append(event)
            } else {
                undecodable += 1
            }
        }
    }

    /// Writes the events of a version 1 file in this format, in the transaction that dropped
    /// the old table (so a crash leaves the old file or the new one), then rebuilds the file
    /// without the old table's pages.
    private func upgrade(_ events: [Event]) throws(SQLiteFailure) {
        do throws(SQLiteFailure) {
            let encoder = SQLiteRowEncoder()
            try insertRows(SQLiteRow.layeringSharedEntries(events).map(encoder.row(for:)))
            try execute("COMMIT")
        } catch {
            _ = try? execute("ROLLBACK")
            throw error
        }
        try execute("PRAGMA auto_vacuum = INCREMENTAL; VACUUM;")
    }

    // MARK: Salvage

    /// Reads the rows of a damaged file, oldest first, up to the first unreadable page.
    ///
    /// Damage often spares the table: a broken index or `sqlite_sequence` page loses nothing,
    /// and a broken table page loses only the rows from there on. Rows whose context cannot
    /// be read are left behind. The file is opened read-only, so the copy kept for inspection
    /// stays as it was found.
    ///
    /// - Returns: the rows read, and the failure that stopped the reading (nil if none did).
    static func salvage(path: String) -> (rows: [SQLiteRow], stoppedBy: SQLiteFailure?) {
        var handle: OpaquePointer?
        let opened = sqlite3_open_v2(path, &handle, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nil)
        defer { sqlite3_close_v2(handle) }
        guard opened == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            return ([], SQLiteFailure(code: opened, message: message))
        }
        if queryVersion(handle) == 1 {
            let (events, unreadable) = readFormat1(handle)
            let encoder = SQLiteRowEncoder()
            return (SQLiteRow.layeringSharedEntries(events).map(encoder.row(for:)), unreadable.stoppedBy)
        }
        let contexts = salvageContexts(handle)
        var statement: OpaquePointer?
        let sql = "SELECT id, received_at, context, json FROM events ORDER BY seq"
        let prepared = sqlite3_prepare_v2(handle, sql, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard prepared == SQLITE_OK, let statement else {
            return ([], SQLiteFailure(code: prepared, message: String(cString: sqlite3_errmsg(handle))))
        }
        var rows: [SQLiteRow] = []
        while true {
            let result = sqlite3_step(statement)
            if result == SQLITE_DONE { return (rows, nil) }
            guard result == SQLITE_ROW else {
                return (rows, SQLiteFailure(code: result, message: String(cString: sqlite3_errmsg(handle))))
            }
            // A row whose id is not a UUID could never be removed by id: leave it behind.
            guard let id = uuid(statement, column: 0), let context = contexts[sqlite3_column_int64(statement, 2)] else {
                continue
            }
            rows.append(
                SQLiteRow(
                    id: id,
                    receivedAtMilliseconds: sqlite3_column_int64(statement, 1),
                    context: context,
                    json: bytes(statement, column: 3)
                )
            )
        }
    }

    /// The contexts of a damaged file that can be read, by id.
    private static func salvageContexts(_ handle: OpaquePointer) -> [Int64: SQLiteContext] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, "SELECT id, json FROM contexts", -1, &statement, nil) == SQLITE_OK,
            let statement
        else {
            sqlite3_finalize(statement)
            return [:]
        }
        defer { sqlite3_finalize(statement) }
        var contexts: [Int64: SQLiteContext] = [:]
        while sqlite3_step(statement) == SQLITE_ROW {
            contexts[sqlite3_column_int64(statement, 0)] = SQLiteContext(json: bytes(statement, column: 1))
        }
        return contexts
    }

    private static func queryVersion(_ handle: OpaquePointer) -> Int64? {
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(handle, "PRAGMA user_version", -1, &statement, nil) == SQLITE_OK,
            sqlite3_step(statement) == SQLITE_ROW
        else { return nil }
        return sqlite3_column_int64(statement, 0)
    }

    private static func uuid(_ statement: OpaquePointer, column: Int32) -> UUID? {
        guard sqlite3_column_bytes(statement, column) == 16, let bytes = sqlite3_column_blob(statement, column) else {
            return nil
        }
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: UnsafeRawBufferPointer(start: bytes, count: 16)) }
        return UUID(uuid: uuid)
    }

    private static func bytes(_ statement: OpaquePointer, column: Int32) -> [UInt8] {
        let length = Int(sqlite3_column_bytes(statement, column))
        guard length > 0, let start = sqlite3_column_blob(statement, column) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: start, count: length))
    }

    // MARK: Operations

    /// Inserts rows in one transaction and evicts the oldest beyond `limit` events or
    /// `maxBytes` (``storedBytes``), whichever is reached first (the newest event stays);
    /// returns the number evicted.
    func insert(_ rows: [SQLiteRow], limit: Int, maxBytes: Int = .max) throws(SQLiteFailure) -> Int {
        do throws(SQLiteFailure) {
            return try transaction { () throws(SQLiteFailure) -> Int in
                try insertRows(rows)
                count += rows.count
                storedBytes += rows.reduce(0) { $0 + Self.storedSize(ofJSON: $1.json.count) }
                let overflow = count - limit
                var evicted = overflow > 0 ? try evict(overflow) : 0
                if storedBytes > maxBytes {
                    evicted += try evict(try oldestToFree(storedBytes - maxBytes))
                }
                return evicted
            }
        } catch {
            // The contexts this transaction stored were rolled back with it.
            contextIDs = nil
            throw error
        }
    }

    /// How many of the oldest rows free at least `bytes`, keeping the newest row.
    private func oldestToFree(_ bytes: Int) throws(SQLiteFailure) -> Int {
        let selectOldestSizes = try statement(.selectOldestSizes)
        defer { sqlite3_reset(selectOldestSizes) }
        var freed = 0
        var number = 0
        while freed < bytes, number < count - 1 {
            let result = sqlite3_step(selectOldestSizes)
            if result == SQLITE_DONE { break }
            guard result == SQLITE_ROW else { throw failure(result) }
            freed += Self.storedSize(ofJSON: Int(sqlite3_column_int64(selectOldestSizes, 0)))
            number += 1
        }
        return number
    }

    /// Steps a `DELETE … RETURNING length(json)` to its end; takes the rows from ``count``
    /// and ``storedBytes`` and returns how many it deleted.
    private func runDeletion(_ statement: OpaquePointer) throws(SQLiteFailure) -> Int {
        defer { sqlite3_reset(statement) }
        var deleted = 0
        while true {
            let result = sqlite3_step(statement)
            if result == SQLITE_DONE { break }
            guard result == SQLITE_ROW else { throw failure(result) }
            deleted += 1
            storedBytes -= Self.storedSize(ofJSON: Int(sqlite3_column_int64(statement, 0)))
        }
        count -= deleted
        return deleted
    }

    /// Rows per multi-row insert. One step of a statement keeps its registers, so SQLite builds
    /// the chunk's records without allocating for each row, and steps, resets and the
    /// sequence's update are paid once per chunk: a take of 512 fire-and-forget events is 16
    /// steps instead of 512.
    static let insertChunkSize = 32

    /// Inserts rows (and their contexts not stored yet) in the open transaction, in order:
    /// whole chunks with one step each, the rest one by one.
    private func insertRows(_ rows: [SQLiteRow]) throws(SQLiteFailure) {
        guard let single = insert else { throw closedFailure }
        var lastContext: (json: [UInt8], id: Int64)?
        var next = rows.startIndex
        while next < rows.endIndex {
            let size = rows.endIndex - next >= Self.insertChunkSize ? Self.insertChunkSize : 1
            let chunk = rows[next..<next + size]
            next += size
            chunkContextIDs.removeAll(keepingCapacity: true)
            for row in chunk {
                if let lastContext, lastContext.json == row.context.json {
                    chunkContextIDs.append(lastContext.id)
                } else {
                    let id = try storedContextID(row.context)
                    lastContext = (row.context.json, id)
                    chunkContextIDs.append(id)
                }
            }
            try check(runInsert(of: chunk, with: size == 1 ? single : try statement(.insertChunk)))
        }
    }

    /// Runs `statement`, an insert of `rows.count` rows (parameters 4 per row: id, received
    /// at, context, json), on `rows` and their ``chunkContextIDs``; returns SQLite's result.
    private func runInsert(of rows: ArraySlice<SQLiteRow>, with statement: OpaquePointer) -> Int32 {
        chunkBytes.removeAll(keepingCapacity: true)
        for row in rows {
            withUnsafeBytes(of: row.id.uuid) { chunkBytes.append(contentsOf: $0) }
            chunkBytes.append(contentsOf: row.json)
        }
        // Bound without a copy (SQLITE_STATIC, a null destructor): `chunkBytes` is not
        // touched until the step below has written the rows.
        return chunkBytes.withUnsafeBytes { bytes -> Int32 in
            guard let base = bytes.baseAddress else { return SQLITE_MISUSE }
            var offset = 0
            for (index, row) in rows.enumerated() {
                let first = Int32(index * 4 + 1)
                let idLength = MemoryLayout.size(ofValue: row.id.uuid)
                let boundID = sqlite3_bind_blob(statement, first, base + offset, Int32(idLength), nil)
                offset += idLength
                let boundJSON = sqlite3_bind_blob(statement, first + 3, base + offset, Int32(row.json.count), nil)
                offset += row.json.count
                sqlite3_bind_int64(statement, first + 1, row.receivedAtMilliseconds)
                sqlite3_bind_int64(statement, first + 2, chunkContextIDs[index])
                guard boundID == SQLITE_OK else { return boundID }
                guard boundJSON == SQLITE_OK else { return boundJSON }
            }
            let stepped = sqlite3_step(statement)
            sqlite3_reset(statement)
            // Unbound before the bytes change: a later failure message must not read them.
            sqlite3_clear_bindings(statement)
            return stepped == SQLITE_DONE ? SQLITE_OK : stepped
        }
    }

    /// The id of the stored context equal to `context`, storing it first if there is none.
    private func storedContextID(_ context: SQLiteContext) throws(SQLiteFailure) -> Int64 {
        if contextIDs == nil { try loadContextIDs() }
        if let id = contextIDs?.first(where: { $0.hash == context.hash && $0.json == context.json })?.id {
            return id
        }
        guard let insertContext else { throw closedFailure }
        if let known = contextIDs?.count, known >= max(32, 2 * contextsAfterCleanUp) {
            // Many sessions queued without the queue ever emptying: drop the contexts no event
            // refers to any more (a scan of the queue, once per so many new contexts).
            try execute("DELETE FROM contexts WHERE id NOT IN (SELECT DISTINCT context FROM events)")
            decodedContexts = [:]
            try loadContextIDs()
            contextsAfterCleanUp = contextIDs?.count ?? 0
        }
        try bindBlob(context.json, to: insertContext, at: 1)
        try run(insertContext)
        let id = sqlite3_last_insert_rowid(db)
        contextIDs?.append((context.hash, id, context.json))
        return id
    }

    private func loadContextIDs() throws(SQLiteFailure) {
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(db, "SELECT id, json FROM contexts", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard prepared == SQLITE_OK, let statement else { throw failure(prepared) }
        var loaded: [(hash: UInt64, id: Int64, json: [UInt8])] = []
        while true {
            let result = sqlite3_step(statement)
            if result == SQLITE_DONE { break }
            guard result == SQLITE_ROW else { throw failure(result) }
            let json = Self.bytes(statement, column: 1)
            loaded.append((SQLiteContext.fnv1a(json), sqlite3_column_int64(statement, 0), json))
        }
        contextIDs = loaded
    }

    /// The decoded context with this id (read from the table on first use).
    private func decodedContext(_ id: Int64) throws(SQLiteFailure) -> SQLiteContext.Decoded? {
        if let known = decodedContexts[id] { return known }
        guard let selectContext else { throw closedFailure }
        sqlite3_bind_int64(selectContext, 1, id)
        defer { sqlite3_reset(selectContext) }
        let result = sqlite3_step(selectContext)
        guard result == SQLITE_ROW else {
            if result == SQLITE_DONE { return nil }
            throw failure(result)
        }
        let length = Int(sqlite3_column_bytes(selectContext, 0))
        let bytes = UnsafeRawBufferPointer(start: sqlite3_column_blob(selectContext, 0), count: length)
        guard let decoded = try? SQLiteContext.decode(bytes) else { return nil }
        decodedContexts[id] = decoded
        return decoded
    }

    /// Once the queue is empty, its contexts go too.
    private func dropContextsIfEmpty() throws(SQLiteFailure) {
        guard count == 0 else { return }
        try run(try statement(.deleteContexts))
        contextIDs = []
        decodedContexts = [:]
        contextsAfterCleanUp = 0
    }

    /// Evicts the oldest rows beyond `limit` (after a lower limit at open); returns how many.
    func enforce(limit: Int, maxBytes: Int = .max) throws(SQLiteFailure) -> Int {
        let overflow = count - limit
        guard overflow > 0 || storedBytes > maxBytes else { return 0 }
        return try transaction { () throws(SQLiteFailure) -> Int in
            var evicted = overflow > 0 ? try evict(overflow) : 0
            if storedBytes > maxBytes {
                evicted += try evict(try oldestToFree(storedBytes - maxBytes))
            }
            return evicted
        }
    }

    /// Deletes the `number` oldest rows; returns how many it deleted.
    private func evict(_ number: Int) throws(SQLiteFailure) -> Int {
        let evictOldest = try statement(.evictOldest)
        guard number > 0 else { return 0 }
        lastRead = ([], [])
        sqlite3_bind_int64(evictOldest, 1, Int64(number))
        return try runDeletion(evictOldest)
    }

    /// Deletes rows received before `cutoffMilliseconds`; returns how many.
    func prune(receivedBefore cutoffMilliseconds: Int64) throws(SQLiteFailure) -> Int {
        let pruneOlder = try statement(.pruneOlder)
        return try transaction { () throws(SQLiteFailure) -> Int in
            sqlite3_bind_int64(pruneOlder, 1, cutoffMilliseconds)
            let pruned = try runDeletion(pruneOlder)
            try dropContextsIfEmpty()
            return pruned
        }
    }

    /// The oldest `limit` events, for sending under `lease`. Rows that do not decode are
    /// deleted and reported.
    ///
    /// With a lease, the events are read only if this connection can take the queue's send
    /// lease (see ``SendLease``); when another live process holds it, the result is empty:
    /// that process is sending the oldest events, and will send these after them.
    func oldest(
        _ limit: Int,
        lease: SendLease? = nil
    ) throws(SQLiteFailure) -> (events: [Event], unreadable: [String]) {
        try withoutFsync { () throws(SQLiteFailure) -> (events: [Event], unreadable: [String]) in
            try transaction { () throws(SQLiteFailure) -> (events: [Event], unreadable: [String]) in
                // Nothing to send: no lease needed (and no write).
                guard !isVerified || count > 0 else {
                    try releaseLease()
                    return ([], [])
                }
                if let lease {
                    guard try take(lease) else { return ([], []) }
                    heldLease = (lease.token, .max)
                }
                let read = try readOldest(limit)
                if let held = heldLease, !read.events.isEmpty, let last = read.lastSequence {
                    heldLease = (held.token, last)
                } else {
                    try releaseLease()
                }
                return (read.events, read.unreadable)
            }
        }
    }

    /// Reads the oldest `limit` events in the open transaction; `lastSequence` is the last
    /// row read (nil when none was).
    private func readOldest(
        _ limit: Int
    ) throws(SQLiteFailure) -> (events: [Event], unreadable: [String], lastSequence: Int64?) {
        let selectOldest = try statement(.selectOldest)
        let deleteBySequence = try statement(.deleteBySequence)
        var lastSequence: Int64?
        var events: [Event] = []
        events.reserveCapacity(min(limit, count))
        var unreadableSequences: [Int64] = []
        var unreadable: [String] = []
        var readIDs: [UUID] = []
        var readSequences: [Int64] = []
        sqlite3_bind_int64(selectOldest, 1, Int64(limit))
        defer { sqlite3_reset(selectOldest) }
        while true {
            let result = sqlite3_step(selectOldest)
            if result == SQLITE_DONE { break }
            guard result == SQLITE_ROW else { throw failure(result) }
            let sequence = sqlite3_column_int64(selectOldest, 0)
            lastSequence = sequence
            let contextID = sqlite3_column_int64(selectOldest, 3)
            let length = Int(sqlite3_column_bytes(selectOldest, 4))
            let json = UnsafeRawBufferPointer(start: sqlite3_column_blob(selectOldest, 4), count: length)
            guard let id = Self.uuid(selectOldest, column: 1) else {
                unreadableSequences.append(sequence)
                unreadable.append("row \(sequence): the id is not a UUID")
                continue
            }
            guard let context = try decodedContext(contextID) else {
                unreadableSequences.append(sequence)
                unreadable.append("row \(sequence): its context \(contextID) is missing or unreadable")
                continue
            }
            do {
                let event = try SQLiteRow.event(
                    id: id,
                    receivedAtMilliseconds: sqlite3_column_int64(selectOldest, 2),
                    context: context,
                    json: json
                )
                events.append(event)
                readIDs.append(event.id)
                readSequences.append(sequence)
            } catch {
                unreadableSequences.append(sequence)
                unreadable.append("row \(sequence): \(error)")
            }
        }
        sqlite3_reset(selectOldest)
        if !unreadableSequences.isEmpty {
            try transaction { () throws(SQLiteFailure) in
                for sequence in unreadableSequences {
                    sqlite3_bind_int64(deleteBySequence, 1, sequence)
                    _ = try runDeletion(deleteBySequence)
                }
            }
            try dropContextsIfEmpty()
        }
        // A prefix of the rows read is "every row up to a sequence number" only if no
        // unreadable row sits between them.
        lastRead = unreadableSequences.isEmpty ? (readIDs, readSequences) : ([], [])
        return (events, unreadable, lastSequence)
    }

    /// Deletes the rows with these ids; returns how many were deleted. Releases the send
    /// lease once none of the rows it covers is left (the whole batch was delivered or
    /// rejected; a batch sent in halves keeps it until its second half is removed).
    func remove(ids: [UUID]) throws(SQLiteFailure) -> Int {
        guard !ids.isEmpty else { return 0 }
        return try withoutFsync { () throws(SQLiteFailure) -> Int in
            try transaction { () throws(SQLiteFailure) -> Int in
                let removed = try delete(ids: ids)
                if let heldLease, !(try anyRow(through: heldLease.through)) {
                    try releaseLease()
                }
                try dropContextsIfEmpty()
                return removed
            }
        }
    }

    // MARK: Sharing the file with other processes

    /// The right to send the oldest events, held by one connection (one process) at a time,
    /// for `duration` from each peek, so that no two processes send the same batch at once.
    ///
    /// Why one lease for the whole queue rather than one per batch: events leave in the order
    /// they were appended, whichever process appended them. With a lease per batch, a process
    /// could deliver later events while another still sends earlier ones, and a process's
    /// events would arrive out of order. One sender at a time is also what one process does
    /// (its dispatcher has one batch in flight).
    ///
    /// A lease is free when it expired, when its process is gone (`kill(pid, 0)` finds no such
    /// process: a killed sender's lease frees itself at once), or when it is this process's
    /// own (one instance per file per process). A sender that dies mid-send leaves its batch
    /// in the queue; the next holder sends the same rows, with the same event ids.
    struct SendLease {
        /// The holder's token, random per cache instance.
        var token: [UInt8]
        /// The holder's process.
        var processIdentifier: Int32
        /// Now and the end of the lease, in milliseconds since 1970 (the cache's clock).
        var now: Int64
        var expiresAt: Int64
    }

    /// Takes or renews the send lease in the open transaction; false when another live
    /// process holds it.
    private func take(_ lease: SendLease) throws(SQLiteFailure) -> Bool {
        guard let selectLease else { throw closedFailure }
        let writeLease = try statement(.writeLease)
        let current: (token: [UInt8], pid: Int32, expiresAt: Int64)?
        let result = sqlite3_step(selectLease)
        if result == SQLITE_ROW {
            current = (
                Self.bytes(selectLease, column: 0), Int32(truncatingIfNeeded: sqlite3_column_int64(selectLease, 1)),
                sqlite3_column_int64(selectLease, 2)
            )
        } else {
            current = nil
        }
        sqlite3_reset(selectLease)
        guard result == SQLITE_ROW || result == SQLITE_DONE else { throw failure(result) }
        if let current, current.token != lease.token, current.pid != lease.processIdentifier,
            current.expiresAt > lease.now, Self.processIsAlive(current.pid)
        {
            return false
        }
        try bindBlob(lease.token, to: writeLease, at: 1)
        sqlite3_bind_int64(writeLease, 2, Int64(lease.processIdentifier))
        sqlite3_bind_int64(writeLease, 3, lease.expiresAt)
        try run(writeLease)
        return true
    }

    /// Gives up the send lease this connection holds, if any.
    private func releaseLease() throws(SQLiteFailure) {
        guard let held = heldLease else { return }
        let deleteLease = try statement(.deleteLease)
        try bindBlob(held.token, to: deleteLease, at: 1)
        try run(deleteLease)
        heldLease = nil
    }

    /// Whether a row with a sequence number up to `sequence` is left.
    private func anyRow(through sequence: Int64) throws(SQLiteFailure) -> Bool {
        let selectRowsThrough = try statement(.selectRowsThrough)
        sqlite3_bind_int64(selectRowsThrough, 1, sequence)
        defer { sqlite3_reset(selectRowsThrough) }
        let result = sqlite3_step(selectRowsThrough)
        guard result == SQLITE_ROW else { throw failure(result) }
        return sqlite3_column_int64(selectRowsThrough, 0) != 0
    }

    /// Whether a process with this id exists (EPERM: it does, but belongs to another user).
    private static func processIsAlive(_ pid: Int32) -> Bool {
        guard pid > 0 else { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    /// Catches up with what other connections committed since this one last looked
    /// (`PRAGMA data_version` changed): reads the counts from the `totals` row, which every
    /// connection that knows it shares the file keeps current with each commit that writes;
    /// counts the rows instead when the row was not rewritten since this connection last saw
    /// it (the commit came from a connection that believed itself alone, as this one did
    /// until now, or from a tool). Forgets the cached contexts (another process may have
    /// deleted them, and their ids be reused). Called at the start of every transaction,
    /// under the write lock, so the counts that eviction and the clean-up of contexts rely on
    /// are exact.
    private func syncWithOtherConnections() throws(SQLiteFailure) {
        guard let dataVersion, let selectTotals else { throw closedFailure }
        let result = sqlite3_step(dataVersion)
        let version = sqlite3_column_int64(dataVersion, 0)
        sqlite3_reset(dataVersion)
        guard result == SQLITE_ROW else { throw failure(result) }
        defer { knownDataVersion = version }
        guard isVerified, let known = knownDataVersion, known != version else { return }
        contextIDs = nil
        decodedContexts = [:]
        let wasSharing = sharesFile
        sharesFile = true
        let totals = sqlite3_step(selectTotals)
        defer { sqlite3_reset(selectTotals) }
        guard totals == SQLITE_ROW || totals == SQLITE_DONE else { throw failure(totals) }
        let stamp = totals == SQLITE_ROW ? sqlite3_column_int64(selectTotals, 2) : -1
        if wasSharing, totals == SQLITE_ROW, stamp != knownTotalsStamp {
            count = Int(sqlite3_column_int64(selectTotals, 0))
            storedBytes = Int(sqlite3_column_int64(selectTotals, 1))
        } else {
            // This connection has kept no totals until now, or the committer did not.
            try countRows()
        }
        knownTotalsStamp = stamp
    }

    /// Writes ``count`` and ``storedBytes`` to the `totals` row, for the other connections,
    /// with a new stamp.
    private func storeTotals() throws(SQLiteFailure) {
        guard let writeTotals else { throw closedFailure }
        sqlite3_bind_int64(writeTotals, 1, Int64(count))
        sqlite3_bind_int64(writeTotals, 2, Int64(storedBytes))
        defer { sqlite3_reset(writeTotals) }
        let result = sqlite3_step(writeTotals)
        guard result == SQLITE_ROW else { throw failure(result) }
        knownTotalsStamp = sqlite3_column_int64(writeTotals, 0)
        _ = sqlite3_step(writeTotals)
    }

    private func delete(ids: [UUID]) throws(SQLiteFailure) -> Int {
        let deleteByID = try statement(.deleteByID)
        let deleteThroughSequence = try statement(.deleteThroughSequence)
        let removed: Int
        if ids.count <= lastRead.ids.count, ids.elementsEqual(lastRead.ids.prefix(ids.count)) {
            // The oldest rows read last, in order: rows are only ever appended with higher
            // sequence numbers (AUTOINCREMENT never reuses one), so these are exactly the rows
            // up to the last one's sequence number (or fewer, if some were removed since).
            sqlite3_bind_int64(deleteThroughSequence, 1, lastRead.sequences[ids.count - 1])
            removed = try runDeletion(deleteThroughSequence)
            lastRead.ids.removeFirst(ids.count)
            lastRead.sequences.removeFirst(ids.count)
        } else {
            removed = try transaction { () throws(SQLiteFailure) -> Int in
                var removed = 0
                for id in ids {
                    try bind(id, to: deleteByID, at: 1)
                    removed += try runDeletion(deleteByID)
                }
                return removed
            }
        }
        return removed
    }

    /// Makes the files small while the cache rests: gives the pages freed by delivered events
    /// back to the system (databases created since format 2; an upgraded one after VACUUM),
    /// then copies the log into the database and truncates it to zero bytes.
    func restCompactly() throws(SQLiteFailure) {
        guard !isClosed else { throw closedFailure }
        try execute("PRAGMA incremental_vacuum; PRAGMA wal_checkpoint(TRUNCATE);")
    }

    /// Deletes every row.
    func removeAll() throws(SQLiteFailure) {
        let deleteAll = try statement(.deleteAll)
        try withoutFsync { () throws(SQLiteFailure) in
            try transaction { () throws(SQLiteFailure) in
                try run(deleteAll)
                count = 0
                storedBytes = 0
                lastRead = ([], [])
                try releaseLease()
                try dropContextsIfEmpty()
            }
        }
    }

    /// The `PRAGMA synchronous` statement for the cache's setting.
    private static func synchronousPragma(fullSync: Bool) -> String {
        fullSync ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL"
    }

    /// Runs a removal without fsyncing its commit even in `fullSync` mode: a removal lost to a
    /// power cut only means a re-send (delivery is at-least-once), and the next fsynced
    /// commit makes it durable too. Appends stay fsynced.
    private func withoutFsync<Result>(_ body: () throws(SQLiteFailure) -> Result) throws(SQLiteFailure) -> Result {
        // Not prepared statements: SQLite applies `PRAGMA synchronous = …` when it prepares
        // one (so preparing both left every connection at FULL), not when it runs it.
        guard fullSync else { return try body() }
        try execute(Self.synchronousPragma(fullSync: false))
        defer { _ = try? execute(Self.synchronousPragma(fullSync: true)) }
        return try body()
    }

    /// The rows of `rows` whose event id this database does not hold, in their order: after
    /// a damaged file was replaced, the appends it had taken that the salvage could not read.
    func missing(_ rows: [SQLiteRow]) throws(SQLiteFailure) -> [SQLiteRow] {
        guard !isClosed else { throw closedFailure }
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(db, "SELECT 1 FROM events WHERE id = ?1", -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard prepared == SQLITE_OK, let statement else { throw failure(prepared) }
        var missing: [SQLiteRow] = []
        for row in rows {
            try bind(row.id, to: statement, at: 1)
            let result = sqlite3_step(statement)
            sqlite3_reset(statement)
            switch result {
            case SQLITE_ROW: continue
            case SQLITE_DONE: missing.append(row)
            default: throw failure(result)
            }
        }
        return missing
    }

    /// SQLite's `PRAGMA synchronous` on this connection now: 1 NORMAL, 2 FULL.
    var synchronousSetting: Int64? {
        try? queryInt("PRAGMA synchronous")
    }

    // MARK: Helpers

    private var closedFailure: SQLiteFailure { SQLiteFailure(code: SQLITE_MISUSE, message: "the connection is closed") }

    private func failure(_ code: Int32) -> SQLiteFailure {
        SQLiteFailure(code: code, message: String(cString: sqlite3_errmsg(db)))
    }

    private func check(_ code: Int32) throws(SQLiteFailure) {
        guard code == SQLITE_OK else { throw failure(code) }
    }

    /// The statements a launch does not need, prepared on their first use: preparing every
    /// one at opening cost about half a millisecond of `initialize` in a new process.
    private enum Statement: Int, CaseIterable {
        /// Inserts ``SQLiteConnection/insertChunkSize`` rows in one step (see `insertRows(_:)`).
        case insertChunk
        case deleteByID, deleteBySequence, deleteThroughSequence, deleteAll, deleteContexts
        case selectOldest, evictOldest, pruneOlder
        /// Bytes of the oldest rows read for a byte-limit eviction.
        case selectOldestSizes
        case writeLease, deleteLease, selectRowsThrough

        var sql: String {
            switch self {
            case .insertChunk:
                return "INSERT OR FAIL INTO events (id, received_at, context, json) VALUES "
                    + (0..<SQLiteConnection.insertChunkSize).map { row in
                        let first = row * 4 + 1
                        return "(?\(first), ?\(first + 1), ?\(first + 2), ?\(first + 3))"
                    }.joined(separator: ", ")
            case .deleteByID: return "DELETE FROM events WHERE id = ?1 RETURNING length(json)"
            case .deleteBySequence: return "DELETE FROM events WHERE seq = ?1 RETURNING length(json)"
            case .deleteThroughSequence: return "DELETE FROM events WHERE seq <= ?1 RETURNING length(json)"
            case .deleteAll: return "DELETE FROM events"
            case .deleteContexts: return "DELETE FROM contexts"
            case .selectOldest: return "SELECT seq, id, received_at, context, json FROM events ORDER BY seq LIMIT ?1"
            case .evictOldest:
                return "DELETE FROM events WHERE seq IN (SELECT seq FROM events ORDER BY seq LIMIT ?1) "
                    + "RETURNING length(json)"
            case .pruneOlder: return "DELETE FROM events WHERE received_at < ?1 RETURNING length(json)"
            case .selectOldestSizes: return "SELECT length(json) FROM events ORDER BY seq"
            case .writeLease:
                return "INSERT OR REPLACE INTO send_lease (id, token, pid, expires_at) VALUES (1, ?1, ?2, ?3)"
            case .deleteLease: return "DELETE FROM send_lease WHERE token = ?1"
            case .selectRowsThrough: return "SELECT EXISTS (SELECT 1 FROM events WHERE seq <= ?1)"
            }
        }
    }

    /// Prepared ``Statement``s by raw value (nil: not used yet).
    private var lazyStatements = [OpaquePointer?](repeating: nil, count: Statement.allCases.count)

    /// `which`, prepared now if this is its first use. Throws on a closed connection.
    private func statement(_ which: Statement) throws(SQLiteFailure) -> OpaquePointer {
        if let prepared = lazyStatements[which.rawValue] { return prepared }
        guard !isClosed else { throw closedFailure }
        let prepared = try prepare(which.sql)
        lazyStatements[which.rawValue] = prepared
        return prepared
    }

    private func prepare(_ sql: String) throws(SQLiteFailure) -> OpaquePointer {
        var statement: OpaquePointer?
        let result = sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard result == SQLITE_OK, let statement else { throw failure(result) }
        statements.append(statement)
        return statement
    }

    /// Steps a statement that returns no rows, then resets it.
    private func run(_ statement: OpaquePointer) throws(SQLiteFailure) {
        let result = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard result == SQLITE_DONE || result == SQLITE_ROW else { throw failure(result) }
    }

    private func bindBlob(_ bytes: [UInt8], to statement: OpaquePointer, at index: Int32) throws(SQLiteFailure) {
        let result = bytes.withUnsafeBytes { raw in
            sqlite3_bind_blob(statement, index, raw.baseAddress, Int32(raw.count), transientDestructor)
        }
        try check(result)
    }

    private func bind(_ id: UUID, to statement: OpaquePointer, at index: Int32) throws(SQLiteFailure) {
        let result = withUnsafeBytes(of: id.uuid) { raw in
            sqlite3_bind_blob(statement, index, raw.baseAddress, Int32(raw.count), transientDestructor)
        }
        try check(result)
    }

    /// Runs `body` in one write transaction, holding SQLite's write lock throughout: no
    /// other connection, in this process or another, writes in between, and one that wants to
    /// write waits for the commit (see ``SQLiteDatabase/appendAbandonedJournals(nextTo:)``).
    func holdingWriteLock<Result>(_ body: () throws(SQLiteFailure) -> Result) throws(SQLiteFailure) -> Result {
        try transaction(body)
    }

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE`: the write lock, so no other
    /// process writes in between), after catching up with other connections' commits, and
    /// stores the new totals with it. A nested call runs in the open transaction.
    private func transaction<Result>(_ body: () throws(SQLiteFailure) -> Result) throws(SQLiteFailure) -> Result {
        if inTransaction { return try body() }
        guard let begin, let commit, let rollback else { throw closedFailure }
        try run(begin)
        inTransaction = true
        defer { inTransaction = false }
        var (countBefore, bytesBefore, stampBefore) = (count, storedBytes, knownTotalsStamp)
        let heldBefore = heldLease
        do {
            try syncWithOtherConnections()
            (countBefore, bytesBefore, stampBefore) = (count, storedBytes, knownTotalsStamp)
            let changesBefore = sqlite3_total_changes64(db)
            let result = try body()
            // Every commit that writes restamps the row, so that the others can tell it from
            // a commit of a connection that keeps no totals.
            if isVerified, sharesFile, sqlite3_total_changes64(db) != changesBefore {
                try storeTotals()
            }
            try run(commit)
            return result
        } catch {
            _ = sqlite3_step(rollback)
            sqlite3_reset(rollback)
            (count, storedBytes) = (countBefore, bytesBefore)
            (heldLease, knownTotalsStamp) = (heldBefore, stampBefore)
            throw error
        }
    }

    private func execute(_ sql: String) throws(SQLiteFailure) {
        var message: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(db, sql, nil, nil, &message)
        defer { sqlite3_free(message) }
        guard result == SQLITE_OK else {
            throw SQLiteFailure(code: result, message: message.map { String(cString: $0) } ?? "error")
        }
    }

    /// Runs `body` again while it fails with SQLITE_BUSY, for as long as the busy timeout.
    ///
    /// Why: SQLite skips the busy handler where waiting could deadlock, and turning a file
    /// into a WAL database is such a place. When two processes (an app and its extension)
    /// open a file that neither has converted yet, one of them gets "database is locked" at
    /// once, although the other is done a moment later; the opening must wait for it, not fail.
    private static func retryingWhileBusy<Value>(
        _ body: () throws(SQLiteFailure) -> Value
    ) throws(SQLiteFailure) -> Value {
        var waited: Int32 = 0
        var pause: Int32 = 1
        while true {
            do {
                return try body()
            } catch let failure where failure.code & 0xFF == SQLITE_BUSY && waited < busyTimeoutMilliseconds {
                sqlite3_sleep(pause)
                waited += pause
                pause = min(pause * 2, 50)
            }
        }
    }

    private func queryText(_ sql: String) throws(SQLiteFailure) -> String? {
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(db, sql, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard prepared == SQLITE_OK, let statement else { throw failure(prepared) }
        let result = sqlite3_step(statement)
        guard result == SQLITE_ROW || result == SQLITE_DONE else { throw failure(result) }
        guard result == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else { return nil }
        return String(cString: text)
    }

    private func queryInt(_ sql: String) throws(SQLiteFailure) -> Int64 {
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(db, sql, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard prepared == SQLITE_OK, let statement else { throw failure(prepared) }
        let result = sqlite3_step(statement)
        guard result == SQLITE_ROW else { throw failure(result) }
        return sqlite3_column_int64(statement, 0)
    }
}

extension String {
    /// SQLite's multi-line reports on one log line.
    fileprivate func replacingNewlines() -> String {
        split(whereSeparator: \.isNewline).joined(separator: " ")
    }
}
