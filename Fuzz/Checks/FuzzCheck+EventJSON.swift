import TelemetryKit
import TelemetryKitSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension FuzzCheck {
    /// Decoding either fails with a typed error or gives an event that survives the cache and
    /// the wire: its encoding decodes to the same event.
    ///
    /// The first round may normalize what the encoder cannot write back (sub-millisecond
    /// digits, a non-finite number, which the encoder writes as a string); from then on the
    /// round trip is exact. (Bytes are not compared: payload keys come in hash order.)
    static func checkEventJSON(_ bytes: UnsafeRawBufferPointer) throws(FuzzCheckFailure) {
        guard let first = try? EventJSONCodec.decode(bytes) else { return }
        let second = try roundTrip(first)
        try expectSameEvent(second, first, context: "decode → encode → decode")
        let third = try roundTrip(second)
        guard third == second else {
            throw FuzzCheckFailure("a second round trip changed the event: \(second) became \(third)")
        }
    }

    private static func roundTrip(_ event: Event) throws(FuzzCheckFailure) -> Event {
        let encoded = EventJSONCodec.encode(event)
        do {
            return try EventJSONCodec.decode(encoded)
        } catch {
            throw FuzzCheckFailure("the encoding of a decoded event does not decode: \(error); \(text(encoded))")
        }
    }

    /// Equal fields and payload, allowing the normalizations of one encoding round.
    static func expectSameEvent(_ actual: Event, _ expected: Event, context: String) throws(FuzzCheckFailure) {
        let sameFields =
            actual.id == expected.id && actual.appID == expected.appID && actual.type == expected.type
            && actual.clientUser == expected.clientUser && actual.sessionID == expected.sessionID
            && actual.isTestMode == expected.isTestMode
            && abs(actual.receivedAt.timeIntervalSince(expected.receivedAt)) < 0.001
            && (actual.floatValue == expected.floatValue
                || (actual.floatValue == nil && expected.floatValue.map { !$0.isFinite } == true))
        guard sameFields else {
            throw FuzzCheckFailure(
                "\(context) changed the event: \(expected) (received \(ISO8601.string(from: expected.receivedAt))) "
                    + "became \(actual) (received \(ISO8601.string(from: actual.receivedAt)))"
            )
        }
        guard actual.payload == expected.payload.mapValues(\.asEncoded) else {
            throw FuzzCheckFailure("\(context) changed the payload: \(expected.payload) became \(actual.payload)")
        }
    }

    static func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes.prefix(400), as: UTF8.self)
    }
}

extension PayloadValue {
    /// The value as the encoder writes it: JSON has no infinities or NaN, so those are strings.
    fileprivate var asEncoded: PayloadValue {
        guard case .double(let value) = self, !value.isFinite else { return self }
        return .string(value.isNaN ? "NaN" : (value < 0 ? "-Infinity" : "Infinity"))
    }
}
