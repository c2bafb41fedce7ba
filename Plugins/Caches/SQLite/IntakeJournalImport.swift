import TelemetryKit
import TelemetryKitCacheSupport
import TelemetryKitSupport

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

/// An intake journal that an earlier version of the cache left beside its file, to import
/// once when the file is opened after an upgrade.
///
/// Earlier versions copied each awaited event into a journal file of their own,
/// `<cache file>-intake-<UUID>`, before committing it, and deleted the file once everything
/// in it was committed. A process killed in between (which is how iOS ends an app it
/// updates) left its journal behind, with events the app had been told were stored. This
/// version commits every event before an awaited send returns and writes no journal; it
/// reads what it finds.
///
/// Layout: a 64-byte header (`TKINTAKE`, the format version 1, then the offsets at which the
/// uncommitted entries begin and the entries end, each a little-endian 64-bit integer), then
/// entries: a 32-bit little-endian length and that many bytes of one encoded event.
///
/// A journal that an earlier version's process still running holds locked (an extension not
/// yet updated, beside the updated app) is skipped; the next opening finds it.
///
/// Found, it is locked by the opening instance: its uncommitted entries are appended before
/// anything else, then ``discard()`` deletes it.
///
/// Look for the journals while holding the cache's write lock, and keep it until their
/// entries are committed: another instance opening meanwhile then waits, instead of finding
/// them locked, taking them for a live instance's, and appending its own events ahead.
///
/// ```swift
/// var journals: [AbandonedIntakeJournal] = []
/// try store.holdingWriteLock {
///     journals = AbandonedIntakeJournal.all(nextTo: path, logger: logger)
///     try store.appendMissing(journals.flatMap(\.entries).map(decode))
/// }
/// journals.forEach { $0.discard() }  // committed
/// ```
final class AbandonedIntakeJournal {
    static var headerSize: Int { 64 }
    static var magic: [UInt8] { Array("TKINTAKE".utf8) }
    static var formatVersion: UInt32 { 1 }
    static var versionField: Int { 8 }
    static var committedOffsetField: Int { 16 }
    static var endOffsetField: Int { 24 }

    let path: String
    /// The uncommitted entries' bytes, oldest first.
    let entries: [[UInt8]]
    private var descriptor: Int32

    private init(path: String, descriptor: Int32, entries: [[UInt8]]) {
        self.path = path
        self.descriptor = descriptor
        self.entries = entries
    }

    deinit {
        // Not discarded (appending its entries failed): unlocked, for the next opening (first
        // explicitly, as a child process being started may hold a copy of the descriptor).
        guard descriptor >= 0 else { return }
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
    }

    /// Empties and deletes the file once its entries are in the cache. It is emptied first:
    /// an instance that opened it before the deletion and locks it after finds nothing.
    func discard() {
        guard descriptor >= 0 else { return }
        let header = [UInt8](repeating: 0, count: Self.headerSize)
        _ = header.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        unlink(path)
        _ = flock(descriptor, LOCK_UN)
        close(descriptor)
        descriptor = -1
    }

    /// Every journal of the cache at `cachePath` that nobody holds, with its uncommitted
    /// entries. Journals held by a live instance are skipped. A file that is not a journal
    /// (its header is unreadable) is moved aside to ``corruptCopyPath(for:)`` and logged; an
    /// entry cut short or running past the end offset ends the entries read, logged. A
    /// journal file whose preparation an instance left unfinished holds no entries: it is
    /// deleted when nobody holds it. (Were a live instance of the earlier version about to
    /// lock it, that instance only fails to open its journal, and its awaited events wait for
    /// their commits instead.)
    static func all(nextTo cachePath: String, logger: any Logging) -> [AbandonedIntakeJournal] {
        let prefix = cachePath + "-intake-"
        let slash = prefix.lastIndex(of: "/")
        let directory = slash.map { String(prefix[..<$0]) } ?? ""
        func fileName(_ path: String) -> String {
            slash.map { String(path[path.index(after: $0)...]) } ?? path
        }
        let namePrefix = fileName(prefix)
        let preparingPrefix = fileName(cachePath + "-preparing-intake-")
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory)) ?? []
        return names.sorted().compactMap { name -> AbandonedIntakeJournal? in
            let preparing = name.hasPrefix(preparingPrefix)
            guard name.hasPrefix(namePrefix) || preparing, !name.contains(".corrupt") else { return nil }
            let path = directory.isEmpty ? name : directory + "/" + name
            let descriptor = openForReplay(path)
            guard descriptor >= 0 else { return nil }  // gone meanwhile
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
                close(descriptor)  // a live instance's
                return nil
            }
            if preparing {
                unlink(path)
                _ = flock(descriptor, LOCK_UN)
                close(descriptor)
                return nil
            }
            switch contents(of: descriptor) {
            case .entries(let entries, let damage):
                if let damage {
                    logger.warning(
                        "The intake journal at \(path) ends in damaged data (\(damage)); replayed the "
                            + "\(entries.count) entries before it."
                    )
                }
                return AbandonedIntakeJournal(path: path, descriptor: descriptor, entries: entries)
            case .notAJournal(let reason):
                let aside = corruptCopyPath(for: path)
                rename(path, aside)
                close(descriptor)
                logger.warning("The file at \(path) is not an intake journal (\(reason)); moved it to \(aside).")
                return nil
            }
        }
    }

    private enum Contents {
        case entries([[UInt8]], damage: String?)
        case notAJournal(String)
    }

    private static func contents(of descriptor: Int32) -> Contents {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = chunk.withUnsafeMutableBytes { readFile(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            if count <= 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        let headerSize = Self.headerSize
        guard bytes.count >= headerSize else { return .notAJournal("\(bytes.count) bytes, shorter than a header") }
        // A header of zeros is a journal another opening replayed and discarded (see
        // ``discard()``) after this one had opened it.
        if bytes[0..<headerSize].allSatisfy({ $0 == 0 }) { return .entries([], damage: nil) }
        guard Array(bytes[0..<8]) == Self.magic else { return .notAJournal("no TKINTAKE header") }
        let version = bytes.withUnsafeBytes {
            UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: Self.versionField, as: UInt32.self))
        }
        guard version == Self.formatVersion else { return .notAJournal("format version \(version)") }
        func offset(at field: Int) -> Int {
            bytes.withUnsafeBytes {
                Int(truncatingIfNeeded: UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: field, as: UInt64.self)))
            }
        }
        let committed = offset(at: Self.committedOffsetField)
        let end = offset(at: Self.endOffsetField)
        guard headerSize <= committed, committed <= end else {
            return .notAJournal("offsets \(committed)–\(end) out of order")
        }
        var damage: String?
        let limit = min(end, bytes.count)
        if end > bytes.count { damage = "the end offset \(end) lies past the file's \(bytes.count) bytes" }
        var entries: [[UInt8]] = []
        var offset = committed
        while offset < limit {
            guard offset + 4 <= limit else {
                damage = "a length cut short at byte \(offset)"
                break
            }
            let length = bytes.withUnsafeBytes {
                Int(UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
            }
            guard length > 0, offset + 4 + length <= limit else {
                damage = "an entry of \(length) bytes at byte \(offset) runs past the end (\(limit))"
                break
            }
            entries.append(Array(bytes[(offset + 4)..<(offset + 4 + length)]))
            offset += 4 + length
        }
        return .entries(entries, damage: damage)
    }
}

extension SQLiteDatabase {
    /// Appends the events that instances which ended before committing them (kill -9, a
    /// crash) left in their intake journals beside `cachePath`, those the database does not
    /// have yet (an owner may have committed some before it died), then deletes the journals.
    /// Entries that do not decode are dropped, counted in `evicted` and logged.
    ///
    /// Why the journals are looked for and locked inside the write transaction that appends
    /// their events: another instance opening at the same time (a relaunched app beside its
    /// extension) waits for that commit before it looks for journals or appends anything of
    /// its own. Were the journals taken first, it would find them locked, take them for a live
    /// instance's, and commit its new events ahead of the older ones being replayed: one
    /// process's events would then be sent out of order.
    mutating func appendAbandonedJournals(nextTo cachePath: String) throws {
        let (logger, rowEncoder, limit, maxBytes) = (logger, rowEncoder, limit, maxBytes)
        var journals: [AbandonedIntakeJournal] = []
        var unreadable: [(path: String, errors: [String])] = []
        var appended: [SQLiteRow] = []
        let evictedNow = try run { connection in
            try connection.holdingWriteLock { () throws(SQLiteFailure) -> Int in
                // A run again after a damaged file was replaced looks for the journals again,
                // once the earlier run's are released (still locked, they would be skipped).
                journals = []
                journals = AbandonedIntakeJournal.all(nextTo: cachePath, logger: logger)
                (unreadable, appended) = ([], [])
                var rows: [SQLiteRow] = []
                for journal in journals {
                    var errors: [String] = []
                    for entry in journal.entries {
                        do {
                            rows.append(rowEncoder.row(for: try EventJSONCodec.decode(entry)))
                        } catch {
                            errors.append("\(error)")
                        }
                    }
                    if !errors.isEmpty { unreadable.append((journal.path, errors)) }
                }
                appended = try connection.missing(rows)
                guard !appended.isEmpty else { return 0 }
                return try connection.insert(appended, limit: limit, maxBytes: maxBytes)
            }
        }
        for (path, errors) in unreadable {
            evicted += errors.count
            logger.warning(
                "Dropped \(errors.count) unreadable event(s) of the intake journal at \(path): "
                    + errors.prefix(3).joined(separator: "; ")
            )
        }
        evicted += evictedNow
        for journal in journals {
            journal.discard()
        }
        guard !appended.isEmpty else { return }
        logger.log(
            .info,
            "Appended \(appended.count) event(s) that instances which ended before committing them had left in "
                + "the intake journal(s) at \(journals.map(\.path).joined(separator: ", "))."
        )
    }
}

// Free functions: inside the types, `open` and `read` would name their own members.

private func openForReplay(_ path: String) -> Int32 {
    open(path, O_RDWR | O_CLOEXEC)
}

private func readFile(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
