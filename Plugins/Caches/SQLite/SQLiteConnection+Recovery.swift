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

// Checking the file at opening and reading what can be read from a damaged one.
extension SQLiteConnection {
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
    func countRows() throws(SQLiteFailure) {
        count = Int(try queryInt("SELECT COUNT(*) FROM events"))
        storedBytes = count * Self.storedSize(ofJSON: 0) + Int(try queryInt("SELECT TOTAL(length(json)) FROM events"))
    }

    /// `PRAGMA quick_check`: every page's structure, without matching indexes to the table.
    func quickCheck() throws(SQLiteFailure) {
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
    static func salvageContexts(_ handle: OpaquePointer) -> [Int64: SQLiteContext] {
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

    static func queryVersion(_ handle: OpaquePointer) -> Int64? {
        var statement: OpaquePointer?
        defer { sqlite3_finalize(statement) }
        guard sqlite3_prepare_v2(handle, "PRAGMA user_version", -1, &statement, nil) == SQLITE_OK,
            sqlite3_step(statement) == SQLITE_ROW
        else { return nil }
        return sqlite3_column_int64(statement, 0)
    }

    static func uuid(_ statement: OpaquePointer, column: Int32) -> UUID? {
        guard sqlite3_column_bytes(statement, column) == 16, let bytes = sqlite3_column_blob(statement, column) else {
            return nil
        }
        var uuid: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &uuid) { $0.copyMemory(from: UnsafeRawBufferPointer(start: bytes, count: 16)) }
        return UUID(uuid: uuid)
    }

    static func bytes(_ statement: OpaquePointer, column: Int32) -> [UInt8] {
        let length = Int(sqlite3_column_bytes(statement, column))
        guard length > 0, let start = sqlite3_column_blob(statement, column) else { return [] }
        return [UInt8](UnsafeRawBufferPointer(start: start, count: length))
    }
}
