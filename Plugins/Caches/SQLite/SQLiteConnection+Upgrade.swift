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

// Converting a file written in an earlier format.
extension SQLiteConnection {
    // MARK: Earlier formats

    /// The events of a version 1 file (each row the event's whole JSON), oldest first; rows
    /// that do not decode are counted in ``droppedByUpgrade``.
    func readFormat1() throws(SQLiteFailure) -> [Event] {
        let (events, unreadable) = Self.readFormat1(db)
        if let failure = unreadable.stoppedBy { throw failure }
        droppedByUpgrade = unreadable.undecodable
        return events
    }

    static func readFormat1(
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
    func upgrade(_ events: [Event]) throws(SQLiteFailure) {
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
}
