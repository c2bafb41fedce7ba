public import TelemetryKit
import TelemetryKitCacheSupport

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A durable FIFO event cache in a SQLite database (the system SQLite, WAL mode).
///
/// Events survive a crash or a kill of the process from the moment `append` returns. One
/// table holds the events in insertion order (an autoincrement sequence), each with its id
/// (indexed, for `remove(ids:)`) and its JSON. Concurrent appends are committed together in
/// one transaction (group commit). When the cache holds more than `limit` events, the oldest
/// are evicted and counted; with `maxEventAge`, events older than that are dropped (and
/// counted as evicted) when the cache opens and before a `peek`, at most every tenth of
/// `maxEventAge` or every minute, whichever is shorter (a scan without an index, so appends
/// stay cheap).
///
/// A file that is not a readable database (damaged, or random bytes) is moved aside with a
/// `.corrupt` suffix and replaced by an empty database, with a warning.
///
/// ```swift
/// let cache = try SQLiteEventCache(fileURL: supportDirectory.appending(path: "events.sqlite"))
/// let destination = Destination(id: "main", transmitter: transmitter, cache: cache)
/// ```
///
/// Use one instance per file: the instance keeps the row count in memory.
public final class SQLiteEventCache: EventCaching {
    /// How far a committed append survives.
    public enum Synchronous: Sendable, Hashable {
        /// Survives a crash of the process; a power loss may lose the last commits but never
        /// damages the database (SQLite `synchronous = NORMAL`).
        case normal
        /// Survives a power loss as well: every append is fsynced (`synchronous = FULL`).
        /// Removals are not: one lost to a power cut only means a re-send.
        case full
    }

    private struct Store {
        var connection: SQLiteConnection
        var evicted = 0
        var lastPrune: Date
    }

    /// The database file.
    public let fileURL: URL
    /// The maximum number of events kept.
    public let limit: Int
    /// Events older than this (by `receivedAt`) are dropped; `nil` keeps them.
    public let maxEventAge: TimeInterval?

    private let store: Locked<Store>
    private let committer: GroupCommitter<SQLiteRow>
    private let logger: any Logging
    private let clock: any TelemetryClock
    private let pruneInterval: TimeInterval

    /// Opens or creates the cache at `fileURL`, creating the directory if needed.
    ///
    /// - Parameters:
    ///   - fileURL: the database file (`-wal` and `-shm` files appear beside it).
    ///   - limit: the maximum number of events kept (default 10,000); the oldest are evicted.
    ///   - maxEventAge: drop events older than this many seconds; `nil` keeps them.
    ///   - synchronous: `.full` (default) fsyncs every append; `.normal` survives process
    ///     crashes only, and is faster on slow disks.
    ///   - logger: receives the warnings (a damaged file, unreadable rows).
    ///   - clock: the time `maxEventAge` is measured against.
    /// - Throws: ``EventCacheError`` with the path when the directory or file cannot be
    ///   created or opened.
    public init(
        fileURL: URL,
        limit: Int = 10_000,
        maxEventAge: TimeInterval? = nil,
        synchronous: Synchronous = .full,
        logger: any Logging = StandardErrorLogger(),
        clock: any TelemetryClock = SystemClock()
    ) throws {
        self.fileURL = fileURL
        self.limit = max(1, limit)
        self.maxEventAge = maxEventAge
        self.logger = logger
        self.clock = clock
        pruneInterval = min(60, max(0, (maxEventAge ?? 0) / 10))
        let path = fileURL.path
        try Self.prepareFile(at: fileURL)

        let fullSync = synchronous == .full
        var connection: SQLiteConnection
        do {
            connection = try SQLiteConnection(path: path, fullSync: fullSync)
        } catch let failure where failure.meansUnusableFile {
            let asidePath = path + ".corrupt"
            try Self.moveAside(path, to: asidePath)
            logger.warning(
                "The SQLite event cache at \(path) was unreadable (\(failure)); "
                    + "moved it to \(asidePath) and started an empty cache."
            )
            try Self.prepareFile(at: fileURL)
            do {
                connection = try SQLiteConnection(path: path, fullSync: fullSync)
            } catch {
                throw EventCacheError("Cannot create the SQLite event cache: \(error)", path: path)
            }
        } catch {
            throw EventCacheError("Cannot open the SQLite event cache: \(failureDescription(error))", path: path)
        }

        var evicted = 0
        let openedAt = clock.now
        do {
            if let maxEventAge {
                evicted += try connection.prune(
                    receivedBefore: SQLiteRow.milliseconds(openedAt.addingTimeInterval(-maxEventAge))
                )
            }
            evicted += try connection.enforce(limit: self.limit)
        } catch {
            throw EventCacheError("Cannot open the SQLite event cache: \(failureDescription(error))", path: path)
        }

        let store = Locked(Store(connection: connection, evicted: evicted, lastPrune: openedAt))
        let limit = self.limit
        self.store = store
        committer = GroupCommitter { rows in
            try store.withLock { store in
                do {
                    store.evicted += try store.connection.insert(rows, limit: limit)
                } catch {
                    throw EventCacheError("Cannot append to the SQLite event cache: \(error)", path: path)
                }
            }
        }
    }

    public func append(_ events: [Event]) async throws {
        guard !events.isEmpty else { return }
        // Encode on the caller's task, outside the lock; the commit itself is shared.
        try await committer.submit(events.map(SQLiteRow.init))
    }

    public func peek(limit: Int) async throws -> [Event] {
        guard limit > 0 else { return [] }
        let now = clock.now
        let (events, unreadable) = try perform("read from") { store in
            if let maxEventAge, abs(now.timeIntervalSince(store.lastPrune)) >= pruneInterval {
                store.evicted += try store.connection.prune(
                    receivedBefore: SQLiteRow.milliseconds(now.addingTimeInterval(-maxEventAge))
                )
                store.lastPrune = now
            }
            return try store.connection.oldest(limit)
        }
        if !unreadable.isEmpty {
            logger.warning(
                "Dropped \(unreadable.count) unreadable event(s) from the SQLite event cache at "
                    + "\(fileURL.path): \(unreadable.prefix(3).joined(separator: "; "))"
            )
        }
        return events
    }

    public func remove(ids: [UUID]) async throws {
        guard !ids.isEmpty else { return }
        _ = try perform("remove from") { store in try store.connection.remove(ids: ids) }
    }

    public func count() async -> Int {
        store.withLock { $0.connection.count }
    }

    public func removeAll() async throws {
        try perform("clear") { store in try store.connection.removeAll() }
    }

    public func evictedCount() async -> Int {
        store.withLock { $0.evicted }
    }

    // MARK: Helpers

    private func perform<Result>(
        _ action: String,
        _ body: (inout Store) throws -> Result
    ) throws -> Result {
        do {
            return try store.withLock { store in try body(&store) }
        } catch {
            throw EventCacheError("Cannot \(action) the SQLite event cache: \(error)", path: fileURL.path)
        }
    }

    /// Creates the directory and, with mode 0600, the file (SQLite gives its `-wal` and `-shm`
    /// files the database's mode).
    private static func prepareFile(at fileURL: URL) throws {
        let path = fileURL.path
        let directory = fileURL.deletingLastPathComponent().path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw EventCacheError("Cannot create the directory of the SQLite event cache: \(error)", path: directory)
        }
        let descriptor = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw EventCacheError("Cannot create the SQLite event cache file: \(errnoDescription())", path: path)
        }
        close(descriptor)
    }

    /// Moves a damaged database (and its WAL files) aside, replacing an older copy.
    private static func moveAside(_ path: String, to asidePath: String) throws {
        guard rename(path, asidePath) == 0 else {
            throw EventCacheError("Cannot move the damaged SQLite event cache aside: \(errnoDescription())", path: path)
        }
        for suffix in ["-wal", "-shm"] {
            unlink(asidePath + suffix)
            if rename(path + suffix, asidePath + suffix) != 0 {
                unlink(path + suffix)
            }
        }
    }
}

private func failureDescription(_ error: any Error) -> String {
    String(describing: error)
}

private func errnoDescription() -> String {
    let code = errno
    return "\(String(cString: strerror(code))) (errno \(code))"
}
