#if Tools
import Testing
import TelemetryKit
import TelemetryKitCollector
import TelemetryKitHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The collector over real HTTP on loopback.
@Suite struct CollectorTests {
    private let connection = URLSessionHTTPConnection()

    private func event(_ number: Int, payload: [String: PayloadValue] = ["screen": "home", "n": 1]) -> Event {
        Event(
            id: UUID(uuidString: "00000000-0000-4000-8000-\(String(repeating: "0", count: 11))\(number % 10)") ?? UUID(),
            appID: "APP",
            type: "Event.\(number)",
            clientUser: "user",
            receivedAt: Date(timeIntervalSince1970: Double(1_718_460_000_000 + Int64(number)) / 1000),
            payload: payload
        )
    }

    private func post(
        _ collector: Collector,
        body: [UInt8],
        path: String = "/v2/namespace/ns/",
        headers: [HTTPHeader] = [HTTPHeader("Content-Type", "application/json")]
    ) async throws -> HTTPResponse {
        let url = try #require(URL(string: collector.baseURL + path))
        return try await connection.send(HTTPRequest(url: url, headers: headers, body: Data(body), timeout: 10))
    }

    private func get(_ collector: Collector, _ path: String) async throws -> HTTPResponse {
        let url = try #require(URL(string: collector.baseURL + path))
        return try await connection.send(HTTPRequest(url: url, method: "GET", timeout: 10))
    }

    private func withCollector(_ body: (Collector) async throws -> Void) async throws {
        let collector = try await Collector.start()
        do {
            try await body(collector)
        } catch {
            await collector.shutdown()
            throw error
        }
        await collector.shutdown()
    }

    @Test func acceptsEncodedEventsAndRecordsThem() async throws {
        try await withCollector { collector in
            let events = [event(1), event(2, payload: ["ratio": 0.5, "flag": false, "big": .int(Int64.max)])]
            let response = try await post(collector, body: EventWireEncoder.encode(events))
            print("BODY", String(decoding: response.body, as: UTF8.self))
            #expect(response.statusCode == 200)
            #expect(collector.events == events)
            #expect(collector.requests.first?.namespace == "ns")
        }
    }
}
#endif
