import TelemetryKit
import TelemetryKitHTTP

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

    /// A body the collector accepts (in the wire form with event ids, so events keep their
    /// identity) holds events that, sent again as a body by the SDK's wire encoder, parse to
    /// the same events.
    static func checkIngestRequest(_ bytes: UnsafeRawBufferPointer) throws(FuzzCheckFailure) {
        #if Tools && DEBUG
        let format = Collector.WireFormat.telemetryDeckWithEventIDs
        guard let events = try? IngestParser.events(in: Array(bytes), format: format) else { return }
        let body = EventWireEncoder.encode(events, format: .telemetryDeckWithEventIDs)
        let again: [Event]
        do {
            again = try IngestParser.events(in: body, format: format)
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
