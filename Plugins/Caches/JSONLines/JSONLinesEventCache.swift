public import TelemetryKit
import TelemetryKitCacheSupport
import TelemetryKitSupport

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A durable FIFO event cache in an append-only journal: one JSON event per line.
///
/// `append` writes the events' lines in one write and fsyncs before it returns (concurrent
/// appends share one write and one fsync: group commit), so an appended event survives a
/// crash, a kill or a power cut. `remove(ids:)` appends an acknowledgement line
/// (`{"ack":["<UUID>",…]}`); once no event is live the file is emptied, and when
/// acknowledged lines outweigh live ones the live lines are rewritten to a new file that
/// replaces the journal atomically (compaction).
///
/// On opening, a torn last line (a crash in the middle of a write) is skipped and truncated
/// away; unreadable lines elsewhere are skipped with one warning, and a copy of the file is
/// kept with a `.corrupt` suffix (numbered when an older copy exists).
///
/// ```swift
/// let cache = try JSONLinesEventCache(fileURL: supportDirectory.appending(path: "events.jsonl"))
/// ```
///
/// ## One process, one instance per file
///
/// The instance keeps the positions of the live events in memory and compaction rewrites the
/// file, so a second writer would corrupt the journal for both and lose acknowledged
/// events. Opening therefore takes
/// an exclusive `flock` on `<file>.lock`, held until the instance is released (the kernel
/// drops it when the process dies, so a killed app never locks out its next launch), and a
/// second instance, in this process or another, gets a ``FileInUseError`` at once.
///
/// Why refuse instead of locking each operation: every operation would first have to read
/// back what the other process wrote (its events, acknowledgements and compactions), which
/// turns each append, peek and removal into a read of the whole journal. Processes that share
/// a queue (an app and its extensions, several workers) use `SQLiteEventCache`, which is
/// built for it; an extension that finds the journal in use can fall back to a queue of its
/// own:
///
/// ```swift
/// let cache: any EventCaching
/// do {
///     cache = try JSONLinesEventCache(fileURL: shared.appending(path: "events.jsonl"))
/// } catch is JSONLinesEventCache.FileInUseError {
///     cache = try JSONLinesEventCache(fileURL: shared.appending(path: "events-widget.jsonl"))
/// }
/// ```
public final class JSONLinesEventCache: EventCaching {
    /// Another instance (in this process or another) has the journal open.
    ///
    /// Thrown by ``init(fileURL:limit:maxBytes:logger:)``; see "One process, one instance
    /// per file" for why a journal has one writer.
    public struct FileInUseError: Error, Sendable, CustomStringConvertible {
        /// The journal file.
        public var path: String
        /// The lock file another instance holds.
        public var lockPath: String

        public var description: String {
            "The JSON-lines event cache at \(path) is in use by another instance (in this process or another; "
                + "it holds \(lockPath)). A journal has one writer: share a queue between processes with "
                + "SQLiteEventCache, or give each process a journal of its own."
        }
    }

    /// The journal file.
    public let fileURL: URL
    /// The maximum number of events kept.
    public let limit: Int
    /// The most bytes of live event lines kept. A line holds the whole event with its
    /// metadata (about 2 KB with the default processors' ~50 entries), so the default
    /// (``defaultMaxBytes``, 8 MiB) keeps about 4,000 such events.
    public let maxBytes: Int

    /// The default ``maxBytes``: 8 MiB.
    public static let defaultMaxBytes = 8 * 1024 * 1024

    private let frame: CommittedEventCache<JSONLinesStore>
    /// Held exclusively for the life of this instance, and released with it: here rather than
    /// in the store, because the frame's I/O queue may hold the store for a moment after the
    /// last call returned, and a new instance opened right after this one is released must
    /// find the journal free.
    private let fileLock: Locked<SidecarFileLock>

    /// Opens or creates the journal at `fileURL`, creating the directory if needed.
    ///
    /// - Parameters:
    ///   - fileURL: the journal file.
    ///   - limit: the maximum number of events kept (default 10,000); the oldest are evicted.
    ///   - maxBytes: the most bytes of event lines kept (default ``defaultMaxBytes``); the
    ///     oldest are evicted. Whichever limit is reached first evicts; evictions count in
    ///     ``evictedCount()`` and are logged once until the next delivery.
    ///   - logger: receives the warnings (a torn last line, unreadable lines, evictions).
    /// - Throws: ``FileInUseError`` when another instance has the journal open;
    ///   ``EventCacheError`` with the path when the directory or file cannot be created, read,
    ///   written or locked.
    public init(
        fileURL: URL,
        limit: Int = 10_000,
        maxBytes: Int = JSONLinesEventCache.defaultMaxBytes,
        logger: any Logging = StandardErrorLogger()
    ) throws {
        self.fileURL = fileURL
        self.limit = max(1, limit)
        self.maxBytes = max(1, maxBytes)
        let path = fileURL.path
        let directory = fileURL.deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw EventCacheError(
                "Cannot create the directory of the JSON-lines event cache: \(error)",
                path: directory
            )
        }
        let lock: SidecarFileLock
        let locked: Bool
        do {
            lock = try SidecarFileLock(path: path + ".lock")
            locked = try lock.lock(.exclusive, wait: false)
        } catch {
            throw EventCacheError("Cannot lock the JSON-lines event cache: \(error)", path: path)
        }
        guard locked else { throw FileInUseError(path: path, lockPath: lock.path) }
        fileLock = Locked(lock)
        let journal: JSONLinesJournal
        let report: JSONLinesJournal.LoadReport
        do {
            journal = try JSONLinesJournal(path: path, maxBytes: self.maxBytes)
            report = try journal.load(limit: self.limit)
        } catch {
            throw EventCacheError("Cannot open the JSON-lines event cache: \(error)", path: path)
        }
        if report.tornTailBytes > 0 {
            logger.warning(
                "Discarded an incomplete last record (\(report.tornTailBytes) bytes, written when the process "
                    + "ended mid-write) from the JSON-lines event cache at \(path)."
            )
        }
        if report.unreadableLines > 0 {
            logger.warning(
                "Skipped \(report.unreadableLines) unreadable line(s) in the JSON-lines event cache at \(path); "
                    + "kept a copy of the file at \(report.corruptCopyPath ?? path + ".corrupt")."
            )
        }
        frame = CommittedEventCache(
            store: JSONLinesStore(journal: journal, evicted: report.evicted),
            name: "JSON-lines event cache",
            path: path,
            limit: self.limit,
            maxBytes: self.maxBytes,
            logger: logger
        )
    }

    public func append(_ events: [Event]) async throws {
        // Encode on the caller's task, outside the lock; the write and fsync are shared.
        try await frame.append(events.map(JSONLinesRecord.init))
    }

    public func peek(limit: Int) async throws -> [Event] {
        guard limit > 0 else { return [] }
        return try await frame.read { try $0.journal.peek(limit) }
    }

    public func remove(ids: [UUID]) async throws {
        try await frame.remove(ids: ids)
    }

    public func count() async -> Int {
        frame.count
    }

    public func removeAll() async throws {
        try await frame.removeAll()
    }

    public func evictedCount() async -> Int {
        frame.evicted
    }

    /// The journal's current size in bytes (it shrinks on compaction and when emptied).
    public var fileSize: Int {
        frame.inspect { Int($0.journal.fileSize) } ?? 0
    }
}

/// The journal as the store of a ``CommittedEventCache``.
struct JSONLinesStore: CommittedEventStore {
    let journal: JSONLinesJournal
    var evicted: Int

    var count: Int { journal.count }

    func append(_ records: [JSONLinesRecord], limit: Int) throws -> Int {
        try journal.append(records, limit: limit)
    }

    func remove(ids: [UUID]) throws {
        _ = try journal.remove(ids: ids)
    }

    func removeAll() throws {
        try journal.removeAll()
    }
}
