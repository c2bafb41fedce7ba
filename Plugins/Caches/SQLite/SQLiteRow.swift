import TelemetryKit
import TelemetryKitSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What many events share: the app, the user, the session, test mode and the processors'
/// metadata (~50 entries with the default processors). Stored once per distinct value in the
/// `contexts` table; each row refers to it by id.
///
/// Its JSON: `{"appID":"…","clientUser":"…","sessionID":"…","isTestMode":false,"payload":{…}}`
/// (`sessionID` left out when nil).
struct SQLiteContext: Sendable {
    var json: [UInt8]
    /// FNV-1a of `json`: finds an equal stored context without comparing every byte.
    var hash: UInt64

    init(json: [UInt8]) {
        self.json = json
        hash = Self.fnv1a(json)
    }

    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3
        }
        return hash
    }

    /// A context read back, ready to be shared by the events that refer to it.
    struct Decoded {
        var appID: String
        var clientUser: String
        var sessionID: String?
        var isTestMode: Bool
        var payload: [String: PayloadValue]
    }

    static func decode(_ bytes: UnsafeRawBufferPointer) throws(EventJSONCodecError) -> Decoded {
        var reader = JSONByteReader(bytes)
        var appID: String?
        var clientUser: String?
        var sessionID: String?
        var isTestMode = false
        var payload: [String: PayloadValue] = [:]
        try reader.expect(UInt8(ascii: "{"))
        if !reader.consume(UInt8(ascii: "}")) {
            repeat {
                let key = try reader.readString()
                try reader.expect(UInt8(ascii: ":"))
                switch key {
                case "appID": appID = try reader.readString()
                case "clientUser": clientUser = try reader.readString()
                case "sessionID": sessionID = reader.consumeNull() ? nil : try reader.readString()
                case "isTestMode": isTestMode = try reader.readBool()
                case "payload": payload = try reader.readPayload()
                default: try reader.skipValue()
                }
            } while try reader.readSeparator(closing: UInt8(ascii: "}"))
        }
        try reader.expectEnd(after: "context")
        guard let appID, let clientUser else { throw reader.error("the context has no appID or clientUser") }
        return Decoded(
            appID: appID,
            clientUser: clientUser,
            sessionID: sessionID,
            isTestMode: isTestMode,
            payload: payload
        )
    }
}

/// One event, encoded for the `events` table (outside the connection lock): its id and time
/// as columns, its context by reference, and the rest (`json`) as
/// `["<type>",{<payload entries above the context's>}]`, with the `floatValue` as a third
/// element when there is one.
struct SQLiteRow: Sendable {
    var id: UUID
    var receivedAtMilliseconds: Int64
    var context: SQLiteContext
    var json: [UInt8]

    /// Milliseconds since 1970, as the row stores `receivedAt`: the ISO 8601 form's rounding,
    /// so an event comes back with the date it would have after a round trip through JSON.
    static func milliseconds(_ date: Date) -> Int64 {
        guard ISO8601.canWrite(date) else { return 0 }
        return Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    /// The event this row and its decoded context hold.
    static func event(
        id: UUID,
        receivedAtMilliseconds: Int64,
        context: SQLiteContext.Decoded,
        json: UnsafeRawBufferPointer
    ) throws(EventJSONCodecError) -> Event {
        var reader = JSONByteReader(json)
        try reader.expect(UInt8(ascii: "["))
        let type = try reader.readString()
        try reader.expect(UInt8(ascii: ","))
        let own = try reader.readPayload()
        var floatValue: Double?
        if reader.consume(UInt8(ascii: ",")) {
            floatValue = try reader.readDouble()
        }
        try reader.expect(UInt8(ascii: "]"))
        try reader.expectEnd(after: "row")
        return Event(
            id: id,
            appID: context.appID,
            type: type,
            clientUser: context.clientUser,
            sessionID: context.sessionID,
            receivedAt: Date(timeIntervalSince1970: Double(receivedAtMilliseconds) / 1000),
            sharedPayload: context.payload,
            ownPayload: own,
            floatValue: floatValue,
            isTestMode: context.isTestMode
        )
    }
}

extension SQLiteRow {
    /// Events read from the first format, each with one flat payload, layered again: in each
    /// run of events of the same app, user, session and test mode, the entries they all have
    /// (the processors' metadata) become one shared dictionary, so that they are stored once.
    static func layeringSharedEntries(_ events: [Event]) -> [Event] {
        var layered: [Event] = []
        layered.reserveCapacity(events.count)
        var runStart = 0
        while runStart < events.count {
            let first = events[runStart]
            var runEnd = runStart + 1
            while runEnd < events.count, events[runEnd].appID == first.appID,
                events[runEnd].clientUser == first.clientUser, events[runEnd].sessionID == first.sessionID,
                events[runEnd].isTestMode == first.isTestMode
            {
                runEnd += 1
            }
            let payloads = events[runStart..<runEnd].map(\.payload)
            let shared = payloads[0].filter { key, value in payloads.allSatisfy { $0[key] == value } }
            for (event, payload) in zip(events[runStart..<runEnd], payloads) {
                layered.append(
                    Event(
                        id: event.id,
                        appID: event.appID,
                        type: event.type,
                        clientUser: event.clientUser,
                        sessionID: event.sessionID,
                        receivedAt: event.receivedAt,
                        sharedPayload: shared,
                        ownPayload: payload.filter { key, _ in shared[key] == nil },
                        floatValue: event.floatValue,
                        isTestMode: event.isTestMode == "true"
                    )
                )
            }
            runStart = runEnd
        }
        return layered
    }
}

/// Encodes events into rows, building each distinct context's JSON once: the events of one
/// session share the same strings and the same encoded metadata, which are compared by
/// identity first, so an event costs its own few entries.
final class SQLiteRowEncoder: Sendable {
    private struct LastContext {
        var appID: String
        var clientUser: String
        var sessionID: String?
        var isTestMode: Bool
        var shared: [UInt8]
        var context: SQLiteContext
    }

    private let last = Locked<LastContext?>(nil)

    func row(for event: Event) -> SQLiteRow {
        var json: [UInt8] = []
        json.reserveCapacity(event.type.utf8.count + 32 + EventJSONCodec.upperEntriesCapacity(of: event))
        json.append(UInt8(ascii: "["))
        EventJSONCodec.appendString(event.type, to: &json)
        json.append(contentsOf: ",{".utf8)
        let shared = EventJSONCodec.appendPayloadLayers(of: event, upperTo: &json)
        json.append(UInt8(ascii: "}"))
        if let floatValue = event.floatValue, floatValue.isFinite {
            json.append(UInt8(ascii: ","))
            EventJSONCodec.appendDouble(floatValue, to: &json)
        }
        json.append(UInt8(ascii: "]"))
        return SQLiteRow(
            id: event.id,
            receivedAtMilliseconds: SQLiteRow.milliseconds(event.receivedAt),
            context: context(of: event, shared: shared ?? []),
            json: json
        )
    }

    private func context(of event: Event, shared: [UInt8]) -> SQLiteContext {
        let hit = last.withLock { last -> SQLiteContext? in
            guard let last, last.shared == shared, last.appID == event.appID, last.clientUser == event.clientUser,
                last.sessionID == event.sessionID, last.isTestMode == (event.isTestMode == "true")
            else { return nil }
            return last.context
        }
        if let hit { return hit }
        var json: [UInt8] = []
        json.reserveCapacity(shared.count + 200)
        json.append(contentsOf: #"{"appID":"#.utf8)
        EventJSONCodec.appendString(event.appID, to: &json)
        json.append(contentsOf: #","clientUser":"#.utf8)
        EventJSONCodec.appendString(event.clientUser, to: &json)
        if let sessionID = event.sessionID {
            json.append(contentsOf: #","sessionID":"#.utf8)
            EventJSONCodec.appendString(sessionID, to: &json)
        }
        json.append(contentsOf: (event.isTestMode == "true" ? #","isTestMode":true"# : #","isTestMode":false"#).utf8)
        json.append(contentsOf: #","payload":{"#.utf8)
        json.append(contentsOf: shared)
        json.append(contentsOf: "}}".utf8)
        let context = SQLiteContext(json: json)
        last.set(
            LastContext(
                appID: event.appID,
                clientUser: event.clientUser,
                sessionID: event.sessionID,
                isTestMode: event.isTestMode == "true",
                shared: shared,
                context: context
            )
        )
        return context
    }
}
