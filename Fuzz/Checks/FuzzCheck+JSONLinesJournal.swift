import TelemetryKit
import TelemetryKitJSONLinesCache
import TelemetryKitSupport

extension FuzzCheck {
    /// Every live entry points at a complete line inside the readable part, in file order,
    /// that decodes to an event with the entry's id; and the journal compaction would write
    /// (the live lines, in order) reads back as the same events with nothing unreadable.
    static func checkJSONLinesJournal(_ bytes: UnsafeRawBufferPointer) throws(FuzzCheckFailure) {
        let contents = JSONLinesJournal.parse(bytes)
        let validEnd = contents.validEnd
        guard validEnd <= bytes.count, validEnd == 0 || bytes[validEnd - 1] == 0x0A else {
            throw FuzzCheckFailure("the readable part ends at \(validEnd), not after a line (\(bytes.count) bytes)")
        }
        var compacted: [UInt8] = []
        var previousEnd: Int64 = 0
        for entry in contents.entries {
            guard entry.offset >= previousEnd, entry.length >= 0, entry.end <= Int64(validEnd),
                bytes[Int(entry.end) - 1] == 0x0A
            else {
                throw FuzzCheckFailure(
                    "entry at \(entry.offset) (+\(entry.length)) is not a line after \(previousEnd) within \(validEnd)"
                )
            }
            let line = UnsafeRawBufferPointer(rebasing: bytes[Int(entry.offset)..<(Int(entry.offset) + entry.length)])
            let event: Event
            do {
                event = try EventJSONCodec.decode(line)
            } catch {
                throw FuzzCheckFailure("a live entry at \(entry.offset) does not decode: \(error)")
            }
            guard event.id == entry.id else {
                throw FuzzCheckFailure("entry \(entry.id) holds the event \(event.id)")
            }
            compacted.append(contentsOf: line)
            compacted.append(0x0A)
            previousEnd = entry.end
        }
        let reread = compacted.withUnsafeBytes { JSONLinesJournal.parse($0) }
        guard reread.entries.map(\.id) == contents.entries.map(\.id), reread.unreadableLines == 0,
            reread.validEnd == compacted.count
        else {
            throw FuzzCheckFailure(
                "the compacted journal reads back differently: \(reread.entries.count) of "
                    + "\(contents.entries.count) entries, \(reread.unreadableLines) unreadable"
            )
        }
    }
}
