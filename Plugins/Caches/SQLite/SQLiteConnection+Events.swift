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

// The events table: appending, evicting, reading the oldest, removing.
extension SQLiteConnection {
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
    func oldestToFree(_ bytes: Int) throws(SQLiteFailure) -> Int {
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
    func runDeletion(_ statement: OpaquePointer) throws(SQLiteFailure) -> Int {
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
    func insertRows(_ rows: [SQLiteRow]) throws(SQLiteFailure) {
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
    func runInsert(of rows: ArraySlice<SQLiteRow>, with statement: OpaquePointer) -> Int32 {
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
    func storedContextID(_ context: SQLiteContext) throws(SQLiteFailure) -> Int64 {
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

    func loadContextIDs() throws(SQLiteFailure) {
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
    func decodedContext(_ id: Int64) throws(SQLiteFailure) -> SQLiteContext.Decoded? {
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
    func dropContextsIfEmpty() throws(SQLiteFailure) {
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
    func evict(_ number: Int) throws(SQLiteFailure) -> Int {
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
    func readOldest(
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

    func delete(ids: [UUID]) throws(SQLiteFailure) -> Int {
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
    static func synchronousPragma(fullSync: Bool) -> String {
        fullSync ? "PRAGMA synchronous = FULL" : "PRAGMA synchronous = NORMAL"
    }

    /// Runs a removal without fsyncing its commit even in `fullSync` mode: a removal lost to a
    /// power cut only means a re-send (delivery is at-least-once), and the next fsynced
    /// commit makes it durable too. Appends stay fsynced.
    func withoutFsync<Result>(_ body: () throws(SQLiteFailure) -> Result) throws(SQLiteFailure) -> Result {
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
}
