public import TelemetryKit
import TelemetryKitCacheSupport

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
/// Use one instance per file: the instance keeps the positions of the live events in memory.
public final class JSONLinesEventCache: EventCaching {
    private struct Store {
        var journal: JSONLinesJournal
        var evicted = 0
    }

    /// The journal file.
    public let fileURL: URL
    /// The maximum number of events kept.
    public let limit: Int

    private let store: Locked<Store>
    private let committer: GroupCommitter<JSONLinesRecord>
    private let logger: any Logging

    /// Opens or creates the journal at `fileURL`, creating the directory if needed.
    ///
    /// - Parameters:
    ///   - fileURL: the journal file.
    ///   - limit: the maximum number of events kept (default 10,000); the oldest are evicted.
    ///   - logger: receives the warnings (a torn last line, unreadable lines).
    /// - Throws: ``EventCacheError`` with the path when the directory or file cannot be
    ///   created, read or written.
    public init(fileURL: URL, limit: Int = 10_000, logger: any Logging = StandardErrorLogger()) throws {
        self.fileURL = fileURL
        self.limit = max(1, limit)
        self.logger = logger
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
        let journal: JSONLinesJournal
        let report: JSONLinesJournal.LoadReport
        do {
            journal = try JSONLinesJournal(path: path)
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

        let store = Locked(Store(journal: journal, evicted: report.evicted))
        let limit = self.limit
        self.store = store
        committer = GroupCommitter { records in
            try store.withLock { store in
                do {
                    store.evicted += try store.journal.append(records, limit: limit)
                } catch {
                    throw EventCacheError("Cannot append to the JSON-lines event cache: \(error)", path: path)
                }
            }
        }
    }

    public func append(_ events: [Event]) async throws {
        guard !events.isEmpty else { return }
        // Encode on the caller's task, outside the lock; the write and fsync are shared.
        try await committer.submit(events.map(JSONLinesRecord.init))
    }

    public func peek(limit: Int) async throws -> [Event] {
        guard limit > 0 else { return [] }
        let (events, unreadable) = try perform("read from") { try $0.journal.peek(limit) }
        if !unreadable.isEmpty {
            logger.warning(
                "Dropped \(unreadable.count) unreadable event(s) from the JSON-lines event cache at "
                    + "\(fileURL.path): \(unreadable.prefix(3).joined(separator: "; "))"
            )
        }
        return events
    }

    public func remove(ids: [UUID]) async throws {
        guard !ids.isEmpty else { return }
        _ = try perform("remove from") { try $0.journal.remove(ids: ids) }
    }

    public func count() async -> Int {
        store.withLock { $0.journal.count }
    }

    public func removeAll() async throws {
        try perform("clear") { try $0.journal.removeAll() }
    }

    public func evictedCount() async -> Int {
        store.withLock { $0.evicted }
    }

    /// The journal's current size in bytes (it shrinks on compaction and when emptied).
    public var fileSize: Int {
        store.withLock { Int($0.journal.fileSize) }
    }

    private func perform<Result>(
        _ action: String,
        _ body: (inout Store) throws -> Result
    ) throws -> Result {
        do {
            return try store.withLock { store in try body(&store) }
        } catch {
            throw EventCacheError("Cannot \(action) the JSON-lines event cache: \(error)", path: fileURL.path)
        }
    }
}
