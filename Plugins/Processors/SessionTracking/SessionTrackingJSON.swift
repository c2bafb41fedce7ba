import TelemetryKit
import TelemetryKitSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// The stored JSON of the session history and of the active-session record, written and read
// by hand rather than through `JSONEncoder` and `JSONDecoder`.
//
// Why: the processor saves both when a session starts, which is inside every app launch, and
// reads them back in the next launch's `start`. The first `JSONEncoder` or `JSONDecoder` call
// in a process spends most of its time in the Swift runtime resolving the generic `Codable`
// machinery (0.7 ms of a new process's launch on Linux, measured with `perf`); these two fixed
// shapes need none of it. The format is unchanged: the same keys and JSON numbers that
// `JSONEncoder` wrote, so histories saved by earlier versions read back, and any JSON reader
// reads ours (the tests decode it with `JSONDecoder`). Unknown keys are skipped, so a later
// version's additions do not make a history unreadable.

extension SessionHistory {
    /// The history as stored under ``SessionTrackingProcessor/Keys/historyStorageKey``.
    func jsonData() -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128 + sessions.count * 48 + days.count * 8)
        bytes.append(contentsOf: #"{"version":"#.utf8)
        EventJSONCodec.appendInteger(Int64(version), to: &bytes)
        bytes.append(contentsOf: #","firstSessionDay":"#.utf8)
        EventJSONCodec.appendInteger(Int64(firstSessionDay), to: &bytes)
        bytes.append(contentsOf: #","prunedSessionCount":"#.utf8)
        EventJSONCodec.appendInteger(Int64(prunedSessionCount), to: &bytes)
        bytes.append(contentsOf: #","prunedDayCount":"#.utf8)
        EventJSONCodec.appendInteger(Int64(prunedDayCount), to: &bytes)
        bytes.append(contentsOf: #","sessions":["#.utf8)
        for (index, session) in sessions.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            bytes.append(contentsOf: #"{"start":"#.utf8)
            EventJSONCodec.appendDouble(session.start, to: &bytes)
            bytes.append(contentsOf: #","seconds":"#.utf8)
            EventJSONCodec.appendDouble(session.seconds, to: &bytes)
            bytes.append(UInt8(ascii: "}"))
        }
        bytes.append(contentsOf: #"],"days":["#.utf8)
        for (index, day) in days.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            EventJSONCodec.appendInteger(Int64(day), to: &bytes)
        }
        bytes.append(contentsOf: "]}".utf8)
        return Data(bytes)
    }

    /// Reads a stored history; every field is required, unknown ones are skipped.
    init(jsonData data: Data) throws(EventJSONCodecError) {
        self = try StoredJSON.readObject(data) { reader throws(EventJSONCodecError) in
            var version: Int?
            var firstSessionDay: Int?
            var prunedSessionCount: Int?
            var prunedDayCount: Int?
            var sessions: [Session]?
            var days: [Int]?
            try StoredJSON.readMembers(of: &reader) { key, reader throws(EventJSONCodecError) in
                switch key {
                case "version": version = try StoredJSON.readInt(&reader)
                case "firstSessionDay": firstSessionDay = try StoredJSON.readInt(&reader)
                case "prunedSessionCount": prunedSessionCount = try StoredJSON.readInt(&reader)
                case "prunedDayCount": prunedDayCount = try StoredJSON.readInt(&reader)
                case "sessions":
                    sessions = try StoredJSON.readArray(&reader) { reader throws(EventJSONCodecError) in
                        try Session(reading: &reader)
                    }
                case "days":
                    days = try StoredJSON.readArray(&reader) { reader throws(EventJSONCodecError) in
                        try StoredJSON.readInt(&reader)
                    }
                default: try reader.skipValue()
                }
            }
            guard let version, let firstSessionDay, let prunedSessionCount, let prunedDayCount, let sessions,
                let days
            else { throw reader.error("a session history without one of its fields") }
            var history = SessionHistory(firstSessionDay: firstSessionDay)
            history.version = version
            history.prunedSessionCount = prunedSessionCount
            history.prunedDayCount = prunedDayCount
            history.sessions = sessions
            history.days = days
            return history
        }
    }
}

extension SessionHistory.Session {
    fileprivate init(reading reader: inout JSONByteReader) throws(EventJSONCodecError) {
        var start: Double?
        var seconds: Double?
        try reader.expect(UInt8(ascii: "{"))
        try StoredJSON.readMembers(of: &reader) { key, reader throws(EventJSONCodecError) in
            switch key {
            case "start": start = try reader.readDouble()
            case "seconds": seconds = try reader.readDouble()
            default: try reader.skipValue()
            }
        }
        guard let start, let seconds else { throw reader.error("a session without its start or length") }
        self.init(start: start, seconds: seconds)
    }
}

extension SessionTrackingProcessor.ActiveSessionRecord {
    /// The record as stored under ``SessionTrackingProcessor/Keys/activeSessionStorageKey``.
    func jsonData() -> Data {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128 + executable.utf8.count)
        bytes.append(contentsOf: #"{"id":"#.utf8)
        EventJSONCodec.appendUUID(id, to: &bytes)
        bytes.append(contentsOf: #","start":"#.utf8)
        EventJSONCodec.appendDouble(start, to: &bytes)
        bytes.append(contentsOf: #","lastActivity":"#.utf8)
        EventJSONCodec.appendDouble(lastActivity, to: &bytes)
        bytes.append(contentsOf: #","process":"#.utf8)
        EventJSONCodec.appendInteger(Int64(process), to: &bytes)
        bytes.append(contentsOf: #","executable":"#.utf8)
        EventJSONCodec.appendString(executable, to: &bytes)
        bytes.append(UInt8(ascii: "}"))
        return Data(bytes)
    }

    /// Reads a stored record; every field is required, unknown ones are skipped.
    init(jsonData data: Data) throws(EventJSONCodecError) {
        self = try StoredJSON.readObject(data) { reader throws(EventJSONCodecError) in
            var id: UUID?
            var start: Double?
            var lastActivity: Double?
            var process: Int32?
            var executable: String?
            try StoredJSON.readMembers(of: &reader) { key, reader throws(EventJSONCodecError) in
                switch key {
                case "id": id = try reader.readUUID()
                case "start": start = try reader.readDouble()
                case "lastActivity": lastActivity = try reader.readDouble()
                case "process":
                    guard let value = Int32(exactly: try StoredJSON.readInt(&reader)) else {
                        throw reader.error("a process id out of range")
                    }
                    process = value
                case "executable": executable = try reader.readString()
                default: try reader.skipValue()
                }
            }
            guard let id, let start, let lastActivity, let process, let executable else {
                throw reader.error("an active-session record without one of its fields")
            }
            return Self(id: id, start: start, lastActivity: lastActivity, process: process, executable: executable)
        }
    }
}

/// The pieces both readers share, over `JSONByteReader`.
private enum StoredJSON {
    /// Runs `read` on a reader over `data` positioned after the opening `{`, and requires
    /// nothing but whitespace after the object.
    static func readObject<Value>(
        _ data: Data,
        _ read: (inout JSONByteReader) throws(EventJSONCodecError) -> Value
    ) throws(EventJSONCodecError) -> Value {
        let result = data.withUnsafeBytes { bytes -> Result<Value, EventJSONCodecError> in
            var reader = JSONByteReader(bytes)
            do throws(EventJSONCodecError) {
                try reader.expect(UInt8(ascii: "{"))
                let value = try read(&reader)
                reader.skipWhitespace()
                guard reader.isAtEnd else { throw reader.error("more after the object") }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    /// Reads the members of an object whose `{` was consumed, through its `}`, handing each
    /// key to `member` with the reader positioned at the value.
    static func readMembers(
        of reader: inout JSONByteReader,
        _ member: (String, inout JSONByteReader) throws(EventJSONCodecError) -> Void
    ) throws(EventJSONCodecError) {
        if reader.consume(UInt8(ascii: "}")) { return }
        repeat {
            let key = try reader.readString()
            try reader.expect(UInt8(ascii: ":"))
            try member(key, &reader)
        } while try reader.readSeparator(closing: UInt8(ascii: "}"))
    }

    /// Reads an array, each element with `element`.
    static func readArray<Element>(
        _ reader: inout JSONByteReader,
        _ element: (inout JSONByteReader) throws(EventJSONCodecError) -> Element
    ) throws(EventJSONCodecError) -> [Element] {
        try reader.expect(UInt8(ascii: "["))
        var elements: [Element] = []
        if reader.consume(UInt8(ascii: "]")) { return elements }
        repeat {
            elements.append(try element(&reader))
        } while try reader.readSeparator(closing: UInt8(ascii: "]"))
        return elements
    }

    /// Reads an integer; a number with a fraction or an exponent, or out of `Int`'s range, is
    /// an error, as it is for `JSONDecoder`.
    static func readInt(_ reader: inout JSONByteReader) throws(EventJSONCodecError) -> Int {
        let number = try reader.readNumber()
        guard case .int(let value) = number, let int = Int(exactly: value) else {
            throw reader.error("expected an integer")
        }
        return int
    }
}
