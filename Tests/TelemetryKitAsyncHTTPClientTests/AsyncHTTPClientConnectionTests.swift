#if AsyncHTTPClient && Tools
import AsyncHTTPClient
import Testing
import TelemetryKit
import TelemetryKitAsyncHTTPClient
import TelemetryKitCollector
import TelemetryKitHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What is particular to the AsyncHTTPClient connection; the transmitter's whole matrix runs
/// over it in TelemetryKitHTTPTests.
@Suite struct AsyncHTTPClientConnectionTests {
    private let event = Event(
        appID: "APP",
        type: "Screen.shown",
        clientUser: "user",
        receivedAt: Date(timeIntervalSince1970: 1_795_462_423),
        payload: ["screen": "home"]
    )

    @Test func sendsThroughAnAppsOwnClientAndKeepsItsConnection() async throws {
        let collector = try await Collector.start()
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        let transmitter = try HTTPEventTransmitter(
            configuration: .init(apiBaseURL: collector.baseURL, namespace: "ns"),
            connection: AsyncHTTPClientConnection(client: client)
        )
        #expect(await transmitter.transmit([event]) == .delivered)
        #expect(await transmitter.transmit([event]) == .delivered)
        // One pooled connection served both requests.
        #expect(collector.requests.map(\.connection) == [0, 0])
        #expect(collector.requests.first?.headers["content-type"] == "application/json")
        #expect(collector.eventCount == 2)
        try await client.shutdown()
        await collector.shutdown()
    }

    @Test func returnsTheStatusHeadersAndBodyOfAnyAnswer() async throws {
        let collector = try await Collector.start()
        let url = try #require(URL(string: collector.baseURL + "/missing"))
        let response = try await AsyncHTTPClientConnection().send(HTTPRequest(url: url, method: "GET", timeout: 10))
        #expect(response.statusCode == 404)
        #expect(response.value(forHeader: "Content-Type") == "text/plain; charset=utf-8")
        #expect(String(decoding: response.body, as: UTF8.self) == "Not found: /missing")
        await collector.shutdown()
    }

    @Test func theTimeoutBoundsTheWholeExchange() async throws {
        let collector = try await Collector.start()
        collector.script([Fault.accept.delayed(by: 3)])
        let url = try #require(URL(string: collector.baseURL + "/v2/namespace/ns/"))
        let request = HTTPRequest(
            url: url,
            headers: [HTTPHeader("Content-Type", "application/json")],
            body: Data(EventWireEncoder.encode([event])),
            timeout: 0.2
        )
        await #expect(throws: (any Error).self) { try await AsyncHTTPClientConnection().send(request) }
        await collector.shutdown()
    }
}
#endif
