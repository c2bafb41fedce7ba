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

// Statements, bindings, transactions and errors.
extension SQLiteConnection {
    // MARK: Helpers

    var closedFailure: SQLiteFailure { SQLiteFailure(code: SQLITE_MISUSE, message: "the connection is closed") }

    func failure(_ code: Int32) -> SQLiteFailure {
        SQLiteFailure(code: code, message: String(cString: sqlite3_errmsg(db)))
    }

    func check(_ code: Int32) throws(SQLiteFailure) {
        guard code == SQLITE_OK else { throw failure(code) }
    }

    /// The statements a launch does not need, prepared on their first use: preparing every
    /// one at opening cost about half a millisecond of `initialize` in a new process.
    enum Statement: Int, CaseIterable {
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

    /// `which`, prepared now if this is its first use. Throws on a closed connection.
    func statement(_ which: Statement) throws(SQLiteFailure) -> OpaquePointer {
        if let prepared = lazyStatements[which.rawValue] { return prepared }
        guard !isClosed else { throw closedFailure }
        let prepared = try prepare(which.sql)
        lazyStatements[which.rawValue] = prepared
        return prepared
    }

    func prepare(_ sql: String) throws(SQLiteFailure) -> OpaquePointer {
        var statement: OpaquePointer?
        let result = sqlite3_prepare_v3(db, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard result == SQLITE_OK, let statement else { throw failure(result) }
        statements.append(statement)
        return statement
    }

    /// Steps a statement that returns no rows, then resets it.
    func run(_ statement: OpaquePointer) throws(SQLiteFailure) {
        let result = sqlite3_step(statement)
        sqlite3_reset(statement)
        guard result == SQLITE_DONE || result == SQLITE_ROW else { throw failure(result) }
    }

    func bindBlob(_ bytes: [UInt8], to statement: OpaquePointer, at index: Int32) throws(SQLiteFailure) {
        let result = bytes.withUnsafeBytes { raw in
            sqlite3_bind_blob(statement, index, raw.baseAddress, Int32(raw.count), transientDestructor)
        }
        try check(result)
    }

    func bind(_ id: UUID, to statement: OpaquePointer, at index: Int32) throws(SQLiteFailure) {
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
    func transaction<Result>(_ body: () throws(SQLiteFailure) -> Result) throws(SQLiteFailure) -> Result {
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

    func execute(_ sql: String) throws(SQLiteFailure) {
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
    static func retryingWhileBusy<Value>(
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

    func queryText(_ sql: String) throws(SQLiteFailure) -> String? {
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(db, sql, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard prepared == SQLITE_OK, let statement else { throw failure(prepared) }
        let result = sqlite3_step(statement)
        guard result == SQLITE_ROW || result == SQLITE_DONE else { throw failure(result) }
        guard result == SQLITE_ROW, let text = sqlite3_column_text(statement, 0) else { return nil }
        return String(cString: text)
    }

    func queryInt(_ sql: String) throws(SQLiteFailure) -> Int64 {
        var statement: OpaquePointer?
        let prepared = sqlite3_prepare_v2(db, sql, -1, &statement, nil)
        defer { sqlite3_finalize(statement) }
        guard prepared == SQLITE_OK, let statement else { throw failure(prepared) }
        let result = sqlite3_step(statement)
        guard result == SQLITE_ROW else { throw failure(result) }
        return sqlite3_column_int64(statement, 0)
    }
}
