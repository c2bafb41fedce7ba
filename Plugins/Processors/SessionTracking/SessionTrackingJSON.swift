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
// machinery, a large part of a new process's launch on Linux; these two fixed
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
        self = try JSONByteReader.reading(data) { reader throws(EventJSONCodecError) in
            var version: Int?
            var firstSessionDay: Int?
            var prunedSessionCount: Int?
            var prunedDayCount: Int?
            var sessions: [Session]?
            var days: [Int]?
            try reader.expect(UInt8(ascii: "{"))
            try reader.readMembers { key, reader throws(EventJSONCodecError) in
                switch key {
                case "version": version = try reader.readInt()
                case "firstSessionDay": firstSessionDay = try reader.readInt()
                case "prunedSessionCount": prunedSessionCount = try reader.readInt()
                case "prunedDayCount": prunedDayCount = try reader.readInt()
                case "sessions":
                    sessions = try reader.readArray { reader throws(EventJSONCodecError) in
                        try Session(reading: &reader)
                    }
                case "days":
                    days = try reader.readArray { reader throws(EventJSONCodecError) in try reader.readInt() }
                default: try reader.skipValue()
                }
            }
            try reader.expectEnd(after: "session history")
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
        try reader.readMembers { key, reader throws(EventJSONCodecError) in
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
        self = try JSONByteReader.reading(data) { reader throws(EventJSONCodecError) in
            var id: UUID?
            var start: Double?
            var lastActivity: Double?
            var process: Int32?
            var executable: String?
            try reader.expect(UInt8(ascii: "{"))
            try reader.readMembers { key, reader throws(EventJSONCodecError) in
                switch key {
                case "id": id = try reader.readUUID()
                case "start": start = try reader.readDouble()
                case "lastActivity": lastActivity = try reader.readDouble()
                case "process":
                    guard let value = Int32(exactly: try reader.readInt()) else {
                        throw reader.error("a process id out of range")
                    }
                    process = value
                case "executable": executable = try reader.readString()
                default: try reader.skipValue()
                }
            }
            try reader.expectEnd(after: "active-session record")
            guard let id, let start, let lastActivity, let process, let executable else {
                throw reader.error("an active-session record without one of its fields")
            }
            return Self(id: id, start: start, lastActivity: lastActivity, process: process, executable: executable)
        }
    }
}
