import TelemetryKit

// The parser is internal to the collector; debug builds compile every module for testing.
#if Tools && DEBUG
@testable import TelemetryKitCollector
#endif

extension FuzzCheck {
    static var ingestParserAvailable: Bool {
        #if Tools && DEBUG
        return true
        #else
        return false
        #endif
    }

    /// A body the collector accepts holds events that, sent again as a body by the SDK's
    /// encoder, parse to the same events.
    static func checkIngestRequest(_ bytes: UnsafeRawBufferPointer) throws(FuzzCheckFailure) {
        #if Tools && DEBUG
        guard let events = try? IngestParser.events(in: Array(bytes)) else { return }
        var body: [UInt8] = [UInt8(ascii: "[")]
        for (index, event) in events.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.append(contentsOf: EventJSONCodec.encode(event))
        }
        body.append(UInt8(ascii: "]"))
        let again: [Event]
        do {
            again = try IngestParser.events(in: body)
        } catch {
            throw FuzzCheckFailure("the SDK's encoding of accepted events is refused: \(error); \(text(body))")
        }
        guard again.count == events.count else {
            throw FuzzCheckFailure("\(events.count) events became \(again.count)")
        }
        for (read, original) in zip(again, events) {
            try expectSameEvent(read, original, context: "parse → encode → parse")
        }
        #endif
    }
}
