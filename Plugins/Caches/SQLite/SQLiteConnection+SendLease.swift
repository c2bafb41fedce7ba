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

// Several processes on one file: the send lease and the shared totals.
extension SQLiteConnection {
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
    func take(_ lease: SendLease) throws(SQLiteFailure) -> Bool {
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
    func releaseLease() throws(SQLiteFailure) {
        guard let held = heldLease else { return }
        let deleteLease = try statement(.deleteLease)
        try bindBlob(held.token, to: deleteLease, at: 1)
        try run(deleteLease)
        heldLease = nil
    }

    /// Whether a row with a sequence number up to `sequence` is left.
    func anyRow(through sequence: Int64) throws(SQLiteFailure) -> Bool {
        let selectRowsThrough = try statement(.selectRowsThrough)
        sqlite3_bind_int64(selectRowsThrough, 1, sequence)
        defer { sqlite3_reset(selectRowsThrough) }
        let result = sqlite3_step(selectRowsThrough)
        guard result == SQLITE_ROW else { throw failure(result) }
        return sqlite3_column_int64(selectRowsThrough, 0) != 0
    }

    /// Whether a process with this id exists (EPERM: it does, but belongs to another user).
    static func processIsAlive(_ pid: Int32) -> Bool {
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
    func syncWithOtherConnections() throws(SQLiteFailure) {
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
    func storeTotals() throws(SQLiteFailure) {
        guard let writeTotals else { throw closedFailure }
        sqlite3_bind_int64(writeTotals, 1, Int64(count))
        sqlite3_bind_int64(writeTotals, 2, Int64(storedBytes))
        defer { sqlite3_reset(writeTotals) }
        let result = sqlite3_step(writeTotals)
        guard result == SQLITE_ROW else { throw failure(result) }
        knownTotalsStamp = sqlite3_column_int64(writeTotals, 0)
        _ = sqlite3_step(writeTotals)
    }
}
