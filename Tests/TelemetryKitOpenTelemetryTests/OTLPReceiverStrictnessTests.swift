#if OpenTelemetry
import Foundation
import TelemetryKit
import TelemetryKitHTTP
import TelemetryKitOpenTelemetry
import Testing

/// The receiver's strictness is what makes `errors == []` in the other tests mean something:
/// bodies OTLP does not allow must be refused.
@Suite("The test receiver refuses what OTLP does not allow")
struct OTLPReceiverStrictnessTests {
    @Test("unknown fields, truncation, base64 or snake_case JSON, and broken gzip are answered 400")
    func refusals() async throws {
        let receiver = try await OTLPReceiver.start()
        let connection = URLSessionHTTPConnection()
        let events = OTLPEventTransmitterTests.events()
        let protobuf = try OTLPEventTransmitter(
            configuration: OTLPEventTransmitterTests.configuration(receiver.endpoint)
        )
        let valid = protobuf.makeRequest(for: events)
        let json = try OTLPEventTransmitter(
            configuration: OTLPEventTransmitterTests.configuration(receiver.endpoint, encoding: .json)
        )
        let validJSON = String(decoding: json.makeRequest(for: events).body, as: UTF8.self)

        func post(_ body: Data, contentType: String, gzip: Bool = false) async throws -> Int {
            var headers = [HTTPHeader("Content-Type", contentType)]
            if gzip { headers.append(HTTPHeader("Content-Encoding", "gzip")) }
            let request = HTTPRequest(url: protobuf.logsURL, headers: headers, body: body, timeout: 10)
            return try await connection.send(request).statusCode
        }

        #expect(try await post(valid.body, contentType: "application/x-protobuf") == 200)
        // Field 19 (varint) after the request's own fields: unknown to ExportLogsServiceRequest.
        #expect(try await post(valid.body + Data([0x98, 0x01, 0x01]), contentType: "application/x-protobuf") == 400)
        #expect(try await post(valid.body.dropLast(3), contentType: "application/x-protobuf") == 400)
        let base64Trace = validJSON.replacingOccurrences(
            of: OTLPEventTransmitterTests.traceID,
            with: Data(repeating: 0xAB, count: 16).base64EncodedString()
        )
        #expect(try await post(Data(base64Trace.utf8), contentType: "application/json") == 400)
        let snakeCase = validJSON.replacingOccurrences(of: "\"eventName\"", with: "\"event_name\"")
        #expect(try await post(Data(snakeCase.utf8), contentType: "application/json") == 400)
        #expect(
            try await post(Data([0x1F, 0x8B, 0x08, 0x00]), contentType: "application/x-protobuf", gzip: true) == 400
        )

        let state = try await receiver.state()
        #expect(state.exports == 6)
        #expect(state.records.count == 2)  // only the valid body's
        #expect(state.errors.count == 5)
        #expect(state.errors.first == "unknown field(s) in ExportLogsServiceRequest")
    }
}
#endif
