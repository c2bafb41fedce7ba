import TelemetryKit
import TelemetryKitCacheSupport
import TelemetryKitSupport

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One event, encoded for the journal (outside the lock).
struct JSONLinesRecord: Sendable {
    var id: UUID
    /// The event's JSON, without the newline.
    var json: [UInt8]

    init(_ event: Event) {
        id = event.id
        json = EventJSONCodec.encode(event)
    }
}

/// A failed file operation, with the errno text.
struct JournalFailure: Error, CustomStringConvertible {
    var operation: String
    var code: Int32

    init(_ operation: String, code: Int32 = errno) {
        self.operation = operation
        self.code = code
    }

    var description: String { "\(operation) failed: \(systemErrorDescription(code))" }
}

/// The journal file and the positions of its live events.
///
/// File format: one record per line. An event line is the event's JSON
/// (`EventJSONCodec`); an acknowledgement line `{"ack":["<UUID>",…]}` removes the events
/// with those ids written before it. Not thread-safe: `JSONLinesEventCache` only touches it
/// inside its lock.
///
/// `package` only for ``parse(_:)``, the reader, which the fuzz target runs on arbitrary bytes.
package final class JSONLinesJournal {
    /// A live event: where its line is.
    package struct Entry {
        package var id: UUID
        package var offset: Int64
        /// The line's length without the newline.
        package var length: Int

        /// Where the line ends, after its newline.
        package var end: Int64 { offset + Int64(length) + 1 }
    }

    /// What a journal's bytes hold.
    package struct Contents {
        /// The events written and not acknowledged, in file order.
        package var entries: [Entry] = []
        /// Lines that are neither an event nor a well-formed acknowledgement.
        package var unreadableLines = 0
        /// Where the last complete line ends: anything after it is a record torn by a crash.
        package var validEnd = 0
    }

    /// What loading the file found, for the cache to log.
    struct LoadReport {
        var tornTailBytes = 0
        var unreadableLines = 0
        var corruptCopyPath: String?
        var evicted = 0
    }

    /// Compaction starts when acknowledged lines take at least this many bytes and more than
    /// the live ones.
    static let compactionMinimumDeadBytes: Int64 = 64 * 1024
    static let ackPrefix: [UInt8] = Array(#"{"ack":["#.utf8)

    let path: String
    /// The most bytes of live event lines kept (newlines included); the oldest are evicted.
    let maxBytes: Int
    private(set) var descriptor: Int32
    private var entries: [Entry] = []
    private var head = 0
    private(set) var fileSize: Int64 = 0
    private var liveBytes: Int64 = 0

    var count: Int { entries.count - head }

    /// Opens (creating if needed) and reads the journal at `path`.
    init(path: String, maxBytes: Int = .max) throws(JournalFailure) {
        self.path = path
        self.maxBytes = maxBytes
        descriptor = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw JournalFailure("open") }
        syncDirectory()
        unlink(temporaryPath)
    }

    deinit {
        close(descriptor)
    }

    private var temporaryPath: String { path + ".compacting" }

    // MARK: Loading

    /// Reads the file: skips a torn last line (truncating it away) and unreadable lines (keeping
    /// a copy of the file aside), applies acknowledgements and the limit.
    func load(limit: Int) throws(JournalFailure) -> LoadReport {
        var report = LoadReport()
        let contents = try readAll()
        let parsed = contents.withUnsafeBytes { Self.parse($0) }
        let validEnd = parsed.validEnd
        report.unreadableLines = parsed.unreadableLines
        fileSize = Int64(contents.count)
        if validEnd < contents.count {
            report.tornTailBytes = contents.count - validEnd
            guard ftruncate(descriptor, off_t(validEnd)) == 0 else { throw JournalFailure("truncating the torn tail") }
            try sync()
            fileSize = Int64(validEnd)
        }
        entries = parsed.entries
        head = 0
        liveBytes = entries.reduce(0) { $0 + Int64($1.length) + 1 }

        if report.unreadableLines > 0 {
            // Never over an older copy: the first damage is usually the one worth reading.
            let copyPath = TelemetryKitCacheSupport.corruptCopyPath(for: path)
            try writeFile(copyPath, contents[..<validEnd])
            report.corruptCopyPath = copyPath
            try compact()
        }
        report.evicted = try enforce(limit: limit)
        try compactIfNeeded()
        return report
    }

    /// Reads a journal's bytes: event lines in order, acknowledgements removing the events
    /// with their ids written before them, blank lines skipped, everything else counted as
    /// unreadable. No file access: the cache's loading and the fuzz target share it.
    package static func parse(_ bytes: UnsafeRawBufferPointer) -> Contents {
        var contents = Contents()
        var candidates: [Entry] = []
        var removed: [Bool] = []
        var positionsByID: [UUID: [Int]] = [:]
        var lineStart = 0
        while lineStart < bytes.count {
            guard let newline = bytes[lineStart...].firstIndex(of: 0x0A) else { break }
            let line = UnsafeRawBufferPointer(rebasing: bytes[lineStart..<newline])
            defer {
                lineStart = newline + 1
                contents.validEnd = lineStart
            }
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) { continue }
            if line.starts(with: ackPrefix) {
                guard let ids = parseAck(line) else {
                    contents.unreadableLines += 1
                    continue
                }
                for id in ids {
                    for position in positionsByID.removeValue(forKey: id) ?? [] { removed[position] = true }
                }
                continue
            }
            guard let event = try? EventJSONCodec.decode(line) else {
                contents.unreadableLines += 1
                continue
            }
            positionsByID[event.id, default: []].append(candidates.count)
            candidates.append(Entry(id: event.id, offset: Int64(lineStart), length: line.count))
            removed.append(false)
        }
        contents.entries = zip(candidates, removed).compactMap { $1 ? nil : $0 }
        return contents
    }

    private func readAll() throws(JournalFailure) -> [UInt8] {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { throw JournalFailure("stat") }
        var contents = [UInt8](repeating: 0, count: Int(status.st_size))
        let read = try readRange(into: &contents, at: 0)
        contents.removeLast(contents.count - read)
        return contents
    }

    /// Parses `{"ack":["<UUID>",…]}`.
    static func parseAck(_ line: UnsafeRawBufferPointer) -> [UUID]? {
        var reader = JSONByteReader(line)
        do {
            try reader.expect(UInt8(ascii: "{"))
            guard try reader.readString() == "ack" else { return nil }
            try reader.expect(UInt8(ascii: ":"))
            try reader.expect(UInt8(ascii: "["))
            var ids: [UUID] = []
            if !reader.consume(UInt8(ascii: "]")) {
                repeat {
                    ids.append(try reader.readUUID())
                } while try reader.readSeparator(closing: UInt8(ascii: "]"))
            }
            try reader.expect(UInt8(ascii: "}"))
            reader.skipWhitespace()
            return reader.isAtEnd ? ids : nil
        } catch {
            return nil
        }
    }

    static func ackLine(_ ids: some Sequence<UUID>) -> [UInt8] {
        var line = ackPrefix
        var first = true
        for id in ids {
            if !first { line.append(UInt8(ascii: ",")) }
            first = false
            EventJSONCodec.appendUUID(id, to: &line)
        }
        line.append(contentsOf: Array("]}\n".utf8))
        return line
    }

    // MARK: Operations

    /// Appends the records (and an acknowledgement for evicted events) in one write, then
    /// fsyncs. Returns the number of events evicted to respect `limit`.
    func append(_ records: [JSONLinesRecord], limit: Int) throws(JournalFailure) -> Int {
        let start = fileSize
        var buffer: [UInt8] = []
        buffer.reserveCapacity(records.reduce(0) { $0 + $1.json.count + 1 })
        var newEntries: [Entry] = []
        newEntries.reserveCapacity(records.count)
        for record in records {
            newEntries.append(Entry(id: record.id, offset: start + Int64(buffer.count), length: record.json.count))
            buffer.append(contentsOf: record.json)
            buffer.append(0x0A)
        }
        let overflow = self.overflow(adding: newEntries, limit: limit)
        if overflow > 0 {
            let oldLive = entries[head...]
            let evictedIDs =
                oldLive.prefix(overflow).map(\.id) + newEntries.prefix(max(0, overflow - oldLive.count)).map(\.id)
            buffer.append(contentsOf: Self.ackLine(evictedIDs))
        }
        do throws(JournalFailure) {
            try writeAll(buffer)
            try sync()
        } catch {
            // Leave no half-written record behind; the file is as it was.
            _ = ftruncate(descriptor, off_t(start))
            throw error
        }
        fileSize += Int64(buffer.count)
        entries.append(contentsOf: newEntries)
        liveBytes += newEntries.reduce(0) { $0 + Int64($1.length) + 1 }
        dropOldest(overflow)
        try compactIfNeeded()
        return overflow
    }

    /// How many of the oldest events (the live ones, then `newEntries`) go so that at most
    /// `limit` events and ``maxBytes`` bytes stay; the newest event always stays.
    private func overflow(adding newEntries: [Entry] = [], limit: Int) -> Int {
        let total = count + newEntries.count
        var overflow = max(0, total - limit)
        var bytes = liveBytes + newEntries.reduce(0) { $0 + Int64($1.length) + 1 }
        guard bytes > Int64(maxBytes) || overflow > 0 else { return 0 }
        func size(_ index: Int) -> Int64 {
            let entry = index < count ? entries[head + index] : newEntries[index - count]
            return Int64(entry.length) + 1
        }
        for index in 0..<overflow { bytes -= size(index) }
        while bytes > Int64(maxBytes), overflow < total - 1 {
            bytes -= size(overflow)
            overflow += 1
        }
        return overflow
    }

    /// The oldest `limit` events, and descriptions of lines that no longer decode (those are
    /// acknowledged so they do not block the queue).
    func peek(_ limit: Int) throws(JournalFailure) -> (events: [Event], unreadable: [String]) {
        let selected = entries[head..<(head + min(max(0, limit), count))]
        guard let first = selected.first, let last = selected.last else { return ([], []) }
        var buffer = [UInt8](repeating: 0, count: Int(last.end - first.offset))
        let read = try readRange(into: &buffer, at: first.offset)
        var events: [Event] = []
        events.reserveCapacity(selected.count)
        var unreadable: [(id: UUID, message: String)] = []
        buffer.withUnsafeBytes { bytes in
            for entry in selected {
                let start = Int(entry.offset - first.offset)
                guard start + entry.length <= read else {
                    unreadable.append((entry.id, "event \(entry.id): the line is beyond the end of the file"))
                    continue
                }
                do {
                    events.append(
                        try EventJSONCodec.decode(
                            UnsafeRawBufferPointer(rebasing: bytes[start..<(start + entry.length)])
                        )
                    )
                } catch {
                    unreadable.append((entry.id, "event \(entry.id): \(error)"))
                }
            }
        }
        if !unreadable.isEmpty {
            _ = try remove(ids: unreadable.map(\.id))
        }
        return (events, unreadable.map(\.message))
    }

    /// Removes the events with these ids (an acknowledgement line; the file is emptied once
    /// nothing is live). Returns the number removed.
    func remove(ids: [UUID]) throws(JournalFailure) -> Int {
        guard !ids.isEmpty, count > 0 else { return 0 }
        // The dispatcher's case: the oldest batch, in order.
        let isOldestBatch = ids.count <= count && zip(entries[head...], ids).allSatisfy { $0.id == $1 }
        var removedIDs: [UUID] = []
        var kept: [Entry]?
        if isOldestBatch {
            removedIDs = ids
        } else {
            let removal = Set(ids)
            var keptEntries: [Entry] = []
            keptEntries.reserveCapacity(count)
            for entry in entries[head...] {
                if removal.contains(entry.id) {
                    removedIDs.append(entry.id)
                } else {
                    keptEntries.append(entry)
                }
            }
            guard !removedIDs.isEmpty else { return 0 }
            kept = keptEntries
        }
        if removedIDs.count == count {
            try truncateToEmpty()
            return removedIDs.count
        }
        // Not fsynced: losing an acknowledgement to a power cut only means a re-send.
        let line = Self.ackLine(removedIDs)
        try writeAll(line)
        fileSize += Int64(line.count)
        if let kept {
            entries = kept
            head = 0
            liveBytes = kept.reduce(0) { $0 + Int64($1.length) + 1 }
        } else {
            dropOldest(removedIDs.count)
        }
        try compactIfNeeded()
        return removedIDs.count
    }

    /// Empties the journal.
    func removeAll() throws(JournalFailure) {
        try truncateToEmpty()
    }

    /// Acknowledges the oldest events beyond `limit`; returns how many.
    private func enforce(limit: Int) throws(JournalFailure) -> Int {
        let overflow = overflow(limit: limit)
        guard overflow > 0 else { return 0 }
        let line = Self.ackLine(entries[head..<(head + overflow)].map(\.id))
        try writeAll(line)
        try sync()
        fileSize += Int64(line.count)
        dropOldest(overflow)
        return overflow
    }

    private func dropOldest(_ number: Int) {
        guard number > 0 else { return }
        for entry in entries[head..<(head + number)] { liveBytes -= Int64(entry.length) + 1 }
        head += number
        if head == entries.count {
            entries.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 1024, head * 2 > entries.count {
            entries.removeFirst(head)
            head = 0
        }
    }

    // MARK: Compaction

    private func compactIfNeeded() throws(JournalFailure) {
        if count == 0 {
            if fileSize > 0 { try truncateToEmpty() }
            return
        }
        let deadBytes = fileSize - liveBytes
        if deadBytes >= Self.compactionMinimumDeadBytes, deadBytes > liveBytes {
            try compact()
        }
    }

    private func truncateToEmpty() throws(JournalFailure) {
        guard ftruncate(descriptor, 0) == 0 else { throw JournalFailure("truncating the journal") }
        fileSize = 0
        entries.removeAll(keepingCapacity: true)
        head = 0
        liveBytes = 0
    }

    /// Rewrites the live events to a new file (written, fsynced, then renamed over the
    /// journal), so a crash at any point leaves either the old or the new journal.
    private func compact() throws(JournalFailure) {
        var contents: [UInt8] = []
        contents.reserveCapacity(Int(liveBytes))
        var newEntries: [Entry] = []
        newEntries.reserveCapacity(count)
        var index = head
        while index < entries.count {
            // Read each run of adjacent lines at once.
            var runEnd = index + 1
            while runEnd < entries.count, entries[runEnd].offset == entries[runEnd - 1].end { runEnd += 1 }
            let runStart = entries[index].offset
            var run = [UInt8](repeating: 0, count: Int(entries[runEnd - 1].end - runStart))
            let read = try readRange(into: &run, at: runStart)
            guard read == run.count else { throw JournalFailure("reading live events for compaction", code: EIO) }
            for entry in entries[index..<runEnd] {
                newEntries.append(Entry(id: entry.id, offset: Int64(contents.count), length: entry.length))
                contents.append(contentsOf: run[Int(entry.offset - runStart)..<Int(entry.end - runStart)])
            }
            index = runEnd
        }
        let temporary = open(temporaryPath, O_RDWR | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0o600)
        guard temporary >= 0 else { throw JournalFailure("creating \(temporaryPath)") }
        do throws(JournalFailure) {
            try writeAll(contents, to: temporary)
            try sync(temporary)
            guard rename(temporaryPath, path) == 0 else { throw JournalFailure("renaming the compacted journal") }
        } catch {
            close(temporary)
            unlink(temporaryPath)
            throw error
        }
        // The new descriptor already points at the renamed file: no window without a journal.
        close(descriptor)
        descriptor = temporary
        syncDirectory()
        entries = newEntries
        head = 0
        fileSize = Int64(contents.count)
        liveBytes = fileSize
    }
}
