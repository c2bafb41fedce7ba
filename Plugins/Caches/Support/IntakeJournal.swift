package import TelemetryKit
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

/// A file shared with the kernel that makes an awaited append survive a process kill before
/// its commit, so that the caller does not wait for the commit.
///
/// Why: a durable cache's commit runs on a thread of its own, and an awaited event that
/// waited for it cost two thread hand-offs and the commit itself, more than TelemetryDeck
/// v3's whole in-memory send. Here the
/// caller copies the encoded events into a memory mapping of this file (`MAP_SHARED`) and
/// returns: the bytes are in the kernel's page cache at once, so they outlive the process
/// however it ends (a crash, kill -9, the system ending a suspended app); the cache commits
/// them on its thread soon after, as it does a fire-and-forget append. Like `synchronous =
/// NORMAL` itself, it does not survive a power cut before the kernel writes the pages out,
/// so a cache that promises that (an fsync per commit) does not use a journal.
///
/// The file, `<cache file>-intake-<UUID>`, is this instance's alone: it holds an exclusive
/// `flock` on it while open, and deletes it when it closes with everything committed.
/// Whoever opens the cache next (this process or another sharing the file) replays each
/// journal nobody holds, its owner having died, before anything else (see
/// ``AbandonedIntakeJournal``): the entries past the last commit are appended unless the
/// cache already has their ids (the owner may have died between a commit and noting it here).
///
/// Layout: a 64-byte header (`TKINTAKE`, the format version, then the offsets at which the
/// uncommitted entries begin and the entries end, each a little-endian 64-bit integer), then
/// entries: a 32-bit little-endian length and that many bytes of one encoded event. An
/// entry's bytes are written before the header's end offset moves past them, so a kill in
/// the middle of an append leaves the entry out, and that caller had not been told it was
/// stored. When every entry is committed the offsets go back to the start.
///
/// A full journal (a burst of awaited events faster than the commits) refuses the append,
/// and its caller waits for a commit instead, which also empties the journal.
///
/// ```swift
/// let journal = IntakeJournal<Event>(nextTo: databasePath)
/// try journal.open()                                      // on the cache's I/O queue
/// if case .recorded = journal.record(events, bytes: encoded, ends: ends) { return }
/// ```
package final class IntakeJournal<Record: Sendable>: Sendable {
    /// The bytes a journal file takes while its cache is open: about 120 events of the default
    /// processors. Pages are written only as entries reach them.
    package static var defaultCapacity: Int { 256 * 1024 }

    static var headerSize: Int { 64 }
    static var magic: [UInt8] { Array("TKINTAKE".utf8) }
    static var formatVersion: UInt32 { 1 }
    static var versionField: Int { 8 }
    static var committedOffsetField: Int { 16 }
    static var endOffsetField: Int { 24 }

    /// What ``record(_:bytes:ends:)`` did.
    package enum Recording: Equatable, Sendable {
        /// In the journal; `schedulesCommit` is true for the first append since the last
        /// commit round took the pending records: its caller schedules the next round.
        case recorded(schedulesCommit: Bool)
        /// Not journaled (no room, or the journal is not open): the caller waits for a commit.
        case refused
    }

    private struct Mapping {
        let base: UnsafeMutableRawPointer
        let descriptor: Int32
        let path: String
    }

    private struct State {
        var mapping: Mapping?
        /// Where the entries end (the uncommitted ones begin at the first pending one's start).
        var end = IntakeJournal.headerSize
        /// Records journaled and not yet committed, oldest first, with the offset of each entry.
        var pending: [(record: Record, start: Int)] = []
        /// A commit round was scheduled and has not yet taken the pending records.
        var commitScheduled = false
    }

    /// The cache file the journal belongs to.
    package let cachePath: String
    package let capacity: Int
    private let state = Locked(State())

    /// A journal for the cache at `cachePath`; nothing is created until ``open()``.
    package init(nextTo cachePath: String, capacity: Int = IntakeJournal.defaultCapacity) {
        self.cachePath = cachePath
        self.capacity = max(capacity, Self.headerSize + 4096)
    }

    deinit {
        state.withLock { state in
            guard let mapping = state.mapping else { return }
            munmap(mapping.base, capacity)
            // Entries not committed stay for the next opening to replay.
            if state.pending.isEmpty { unlink(mapping.path) }
            // Unlocked before closing, like SidecarFileLock: a child process being started
            // holds a copy of the descriptor until it runs its program.
            _ = flock(mapping.descriptor, LOCK_UN)
            close(mapping.descriptor)
            state.mapping = nil
        }
    }

    /// The prefix of every journal file of the cache at `cachePath`.
    package static func filePrefix(for cachePath: String) -> String {
        cachePath + "-intake-"
    }

    /// The prefix of a journal file being prepared by ``open()``: not a journal's yet.
    package static func preparingFilePrefix(for cachePath: String) -> String {
        cachePath + "-preparing-intake-"
    }

    /// The journal's file while it is open.
    package var path: String? { state.withLock { $0.mapping?.path } }

    /// Creates, locks and maps this instance's journal file. Blocking file work: call it on
    /// the cache's I/O queue, not on an app's launch path. Until it has run, every append is
    /// refused (and waits for its commit).
    ///
    /// The file is prepared (locked, sized, given its header) under a name that is not a
    /// journal's, ``preparingFilePrefix(for:)``, and then renamed: another instance looking
    /// for abandoned journals meanwhile (see ``AbandonedIntakeJournal/all(nextTo:logger:)``)
    /// never finds a journal of this instance unlocked or without its header. Found so, it
    /// was taken for a dead instance's damaged journal and moved aside while this instance
    /// went on recording into it, and events acknowledged from then on were lost to a kill.
    package func open() throws {
        let unique = UUID().uuidString
        let preparing = Self.preparingFilePrefix(for: cachePath) + unique
        let path = Self.filePrefix(for: cachePath) + unique
        let descriptor = createExclusively(preparing)
        guard descriptor >= 0 else {
            throw EventCacheError("Cannot create the intake journal: \(systemErrorDescription())", path: preparing)
        }
        func fail(_ what: String) -> EventCacheError {
            let message = systemErrorDescription()
            close(descriptor)
            unlink(preparing)
            return EventCacheError("Cannot \(what) the intake journal: \(message)", path: preparing)
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0, ftruncate(descriptor, off_t(capacity)) == 0 else {
            throw fail("prepare")
        }
        let address = mmap(nil, capacity, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0)
        guard let address, address != MAP_FAILED else { throw fail("map") }
        Self.magic.withUnsafeBytes { address.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        address.storeBytes(of: Self.formatVersion.littleEndian, toByteOffset: Self.versionField, as: UInt32.self)
        Self.writeOffsets(committed: Self.headerSize, end: Self.headerSize, at: address)
        guard rename(preparing, path) == 0 else {
            munmap(address, capacity)
            throw fail("name")
        }
        state.withLock { $0.mapping = Mapping(base: address, descriptor: descriptor, path: path) }
    }

    /// Copies the encoded `records` into the journal: `bytes` holds their encodings one after
    /// another, and `ends[i]` is where record `i`'s ends. Never blocks on I/O: a memory copy
    /// under a short lock (touching a page for the first time makes the kernel provide it).
    package func record(_ records: [Record], bytes: [UInt8], ends: [Int]) -> Recording {
        precondition(records.count == ends.count, "one end offset per record")
        return state.withLock { state -> Recording in
            guard let mapping = state.mapping, state.end + bytes.count + 4 * records.count <= capacity else {
                return .refused
            }
            var offset = state.end
            var start = 0
            bytes.withUnsafeBytes { source in
                for (index, end) in ends.enumerated() {
                    let length = end - start
                    mapping.base.storeBytes(of: UInt32(length).littleEndian, toByteOffset: offset, as: UInt32.self)
                    (mapping.base + offset + 4).copyMemory(from: source.baseAddress! + start, byteCount: length)
                    state.pending.append((records[index], offset))
                    offset += 4 + length
                    start = end
                }
            }
            // Last: the entries are whole before the end offset covers them.
            state.end = offset
            mapping.base.storeBytes(of: UInt64(offset).littleEndian, toByteOffset: Self.endOffsetField, as: UInt64.self)
            defer { state.commitScheduled = true }
            return .recorded(schedulesCommit: !state.commitScheduled)
        }
    }

    /// The records journaled and not yet committed, oldest first, for a commit round: they
    /// stay pending until ``markCommitted(_:)``. The next append schedules another round.
    package func takePending() -> [Record] {
        state.withLock { state in
            state.commitScheduled = false
            // A closure: a key path (`\.record`) would be built on every call in this generic type.
            return state.pending.map { $0.record }
        }
    }

    /// Records journaled and not yet committed.
    package var pendingCount: Int { state.withLock { $0.pending.count } }

    /// The bytes of entries (each 4 more than its encoding) that fit now; 0 until ``open()``.
    package var freeBytes: Int {
        state.withLock { $0.mapping == nil ? 0 : capacity - $0.end }
    }

    /// The oldest `count` pending records were committed: the journal no longer needs them,
    /// and once nothing is pending it starts again from the beginning.
    package func markCommitted(_ count: Int) {
        guard count > 0 else { return }
        state.withLock { state in
            state.pending.removeFirst(min(count, state.pending.count))
            if state.pending.isEmpty { state.end = Self.headerSize }
            if let mapping = state.mapping {
                let committed = state.pending.first?.start ?? Self.headerSize
                Self.writeOffsets(committed: committed, end: state.end, at: mapping.base)
            }
        }
    }

    private static func writeOffsets(committed: Int, end: Int, at base: UnsafeMutableRawPointer) {
        base.storeBytes(of: UInt64(committed).littleEndian, toByteOffset: committedOffsetField, as: UInt64.self)
        base.storeBytes(of: UInt64(end).littleEndian, toByteOffset: endOffsetField, as: UInt64.self)
    }
}

/// A journal whose owner died (nobody holds its lock), locked by the opening instance: its
/// uncommitted entries, to append before anything else, then ``discard()``.
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
package final class AbandonedIntakeJournal {
    package let path: String
    /// The uncommitted entries' bytes, oldest first.
    package let entries: [[UInt8]]
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
    package func discard() {
        guard descriptor >= 0 else { return }
        let header = [UInt8](repeating: 0, count: IntakeJournal<Never>.headerSize)
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
    /// journal file whose preparation a dead instance left unfinished holds no entries (its
    /// instance recorded none): it is deleted once it is a minute old. A younger one may be
    /// a live instance's, created and not yet locked (preparing takes microseconds).
    package static func all(nextTo cachePath: String, logger: any Logging) -> [AbandonedIntakeJournal] {
        let prefix = IntakeJournal<Never>.filePrefix(for: cachePath)
        let slash = prefix.lastIndex(of: "/")
        let directory = slash.map { String(prefix[..<$0]) } ?? ""
        func fileName(_ path: String) -> String {
            slash.map { String(path[path.index(after: $0)...]) } ?? path
        }
        let namePrefix = fileName(prefix)
        let preparingPrefix = fileName(IntakeJournal<Never>.preparingFilePrefix(for: cachePath))
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.isEmpty ? "." : directory)) ?? []
        return names.sorted().compactMap { name -> AbandonedIntakeJournal? in
            let preparing = name.hasPrefix(preparingPrefix)
            guard name.hasPrefix(namePrefix) || preparing, !name.contains(".corrupt") else { return nil }
            let path = directory.isEmpty ? name : directory + "/" + name
            if preparing {
                let modified = try? FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date
                guard let modified, modified.timeIntervalSinceNow < -60 else { return nil }
            }
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
        let headerSize = IntakeJournal<Never>.headerSize
        guard bytes.count >= headerSize else { return .notAJournal("\(bytes.count) bytes, shorter than a header") }
        // A header of zeros is a journal another opening replayed and discarded (see
        // ``discard()``) after this one had opened it.
        if bytes[0..<headerSize].allSatisfy({ $0 == 0 }) { return .entries([], damage: nil) }
        guard Array(bytes[0..<8]) == IntakeJournal<Never>.magic else { return .notAJournal("no TKINTAKE header") }
        let version = bytes.withUnsafeBytes {
            UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: IntakeJournal<Never>.versionField, as: UInt32.self))
        }
        guard version == IntakeJournal<Never>.formatVersion else { return .notAJournal("format version \(version)") }
        func offset(at field: Int) -> Int {
            bytes.withUnsafeBytes {
                Int(truncatingIfNeeded: UInt64(littleEndian: $0.loadUnaligned(fromByteOffset: field, as: UInt64.self)))
            }
        }
        let committed = offset(at: IntakeJournal<Never>.committedOffsetField)
        let end = offset(at: IntakeJournal<Never>.endOffsetField)
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

// Free functions: inside the types, `open` and `read` would name their own members.

private func createExclusively(_ path: String) -> Int32 {
    open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
}

private func openForReplay(_ path: String) -> Int32 {
    open(path, O_RDWR | O_CLOEXEC)
}

private func readFile(_ descriptor: Int32, _ buffer: UnsafeMutableRawPointer?, _ count: Int) -> Int {
    read(descriptor, buffer, count)
}
