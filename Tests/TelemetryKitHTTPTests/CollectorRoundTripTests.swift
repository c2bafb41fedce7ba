#if Tools
import Testing
import TelemetryKit
import TelemetryKitCollector
import TelemetryKitHTTP
import TelemetryKitHTTPTestSupport
import TelemetryKitTesting
import TelemetryKitTransformations

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The transmitter against the real collector on loopback, over each connection: what only
/// a real server shows — the request as it arrives, the strict wire check, gzip inflated
/// again, answers as the connection hands them back, redirects, timeouts, lost answers and
/// refused connections. The status rules themselves are in `HTTPEventTransmitterTests`.
@Suite struct CollectorRoundTripTests {
    private let batch = [Fixtures.event(number: 1), Fixtures.event(number: 2, sessionID: nil, floatValue: nil)]

    // MARK: Request shape

    @Test(
        arguments: TestConnection.allCases,
        [
            ("", "/v2/namespace/test-ns/"),
            ("/ingest/", "/ingest/v2/namespace/test-ns/"),
        ]
    )
    func postsToTheComposedPath(connection: TestConnection, paths: (base: String, expected: String)) async throws {
        let (basePath, expectedPath) = paths
        try await withCollector { collector in
            let transmitter = try makeTransmitter(for: collector, connection: connection, path: basePath)
            #expect(await transmitter.transmit(batch) == .delivered)
            let request = try #require(collector.requests.first)
            #expect(request.method == "POST")
            #expect(request.path == expectedPath)
            #expect(request.namespace == "test-ns")
        }
    }

    @Test(arguments: TestConnection.allCases)
    func sendsJSONHeadersAndConfiguredExtras(connection: TestConnection) async throws {
        try await withCollector { collector in
            let transmitter = try makeTransmitter(for: collector, connection: connection) {
                $0.additionalHeaders = ["X-Api-Key": "secret-1"]
            }
            #expect(await transmitter.transmit(batch) == .delivered)
            let headers = try #require(collector.requests.first).headers
            #expect(headers["content-type"] == "application/json")
            #expect(headers["user-agent"] == "TelemetryKit/\(SDKInfo.version)")
            #expect(headers["x-api-key"] == "secret-1")
            #expect(headers["content-encoding"] == nil)
        }
    }

    @Test(arguments: TestConnection.allCases)
    func theCollectorReadsTheBatchAsSent(connection: TestConnection) async throws {
        try await withCollector { collector in
            let transmitter = try makeTransmitter(for: collector, connection: connection)
            #expect(await transmitter.transmit(batch) == .delivered)
            let request = try #require(collector.requests.first)
            let body = try #require(try JSONValue.parse(request.body).arrayValue)
            #expect(body.count == 2)
            #expect(body.first?.objectValue?["id"] == nil)
            #expect(collector.events.map(ServiceEvent.init(expecting:)) == batch.map(ServiceEvent.init(expecting:)))
            // The TelemetryDeck form carries no ids: the collector gave each event its own.
            #expect(request.eventIDs == collector.events.map(\.id))
            #expect(Set(request.eventIDs).isDisjoint(with: batch.map(\.id)))
        }
    }

    @Test(arguments: TestConnection.allCases)
    func theGoldenBatchPassesTheStrictCollectorByteForByte(connection: TestConnection) async throws {
        try await withCollector { collector in
            let transmitter = try makeTransmitter(for: collector, connection: connection)
            #expect(await transmitter.transmit(TelemetryDeckWireTests.events) == .delivered)
            let request = try #require(collector.requests.first)
            #expect(request.status == 200)
            #expect(String(decoding: request.body, as: UTF8.self) == TelemetryDeckWireTests.telemetryDeckBody)
            #expect(
                collector.events.map(ServiceEvent.init(expecting:)) == TelemetryDeckWireTests.serviceEvents
            )
        }
    }

    @Test(arguments: TestConnection.allCases)
    func eventIDsReachACollectorThatExpectsThem(connection: TestConnection) async throws {
        try await withCollector(wireFormat: .telemetryDeckWithEventIDs) { collector in
            let transmitter = try makeTransmitter(for: collector, connection: connection) {
                $0.wireFormat = .telemetryDeckWithEventIDs
            }
            #expect(await transmitter.transmit(batch) == .delivered)
            #expect(collector.requests.first?.eventIDs == batch.map(\.id))
            #expect(collector.events.map(\.id) == batch.map(\.id))
            #expect(collector.events.map(ServiceEvent.init(expecting:)) == batch.map(ServiceEvent.init(expecting:)))
        }
    }

    @Test(arguments: TestConnection.allCases)
    func aWireRegressionIsRefusedWithTheEventAndTheMember(connection: TestConnection) async throws {
        // Ids sent to a receiver that speaks only TelemetryDeck's form: the strict collector
        // answers 400 like the service would, and a 400 drops the batch for good.
        try await withCollector { collector in
            let transmitter = try makeTransmitter(for: collector, connection: connection) {
                $0.wireFormat = .telemetryDeckWithEventIDs
            }
            let outcome = await transmitter.transmit(batch)
            guard case .rejected(let reason) = outcome else {
                Issue.record("expected a rejection, got \(outcome)")
                return
            }
            #expect(reason.statusCode == 400)
            #expect(reason.message.hasPrefix("Malformed body: at byte 2: event 0: unknown member 'id'"))
            #expect(collector.events.isEmpty)
        }
    }

    @Test(arguments: TestConnection.allCases)
    func gzipBodiesRoundTrip(connection: TestConnection) async throws {
        try await withCollector { collector in
            let events = (0..<50).map { Fixtures.event(number: $0, payload: Fixtures.defaultProcessorsPayload) }
            let transmitter = try makeTransmitter(for: collector, connection: connection) { $0.compression = .gzip }
            #expect(await transmitter.transmit(events) == .delivered)
            let request = try #require(collector.requests.first)
            #expect(request.headers["content-encoding"] == "gzip")
            #expect(request.wasGzipped)
            #expect(request.rawBodyByteCount * 5 < request.body.count)
            #expect(collector.events.map(ServiceEvent.init(expecting:)) == events.map(ServiceEvent.init(expecting:)))
        }
    }

    // MARK: Answers

    @Test(arguments: TestConnection.allCases)
    func statusBodyAndRetryAfterComeBackThroughTheConnection(connection: TestConnection) async throws {
        try await withCollector { collector in
            collector.script([
                .status(401, body: "refused: bad key"), .status(503, retryAfter: "7"), .status(429),
                .status(204),
            ])
            let transmitter = try makeTransmitter(for: collector, connection: connection)
            #expect(
                await transmitter.transmit(batch) == .rejected(RejectionReason("refused: bad key", statusCode: 401))
            )
            #expect(await transmitter.transmit(batch) == .retry(after: 7))
            #expect(await transmitter.transmit(batch) == .retry(after: nil))
            #expect(await transmitter.transmit(batch) == .delivered)
            #expect(collector.requests.map(\.status) == [401, 503, 429, 204])
            #expect(collector.events.isEmpty)
        }
    }

    @Test(arguments: TestConnection.allCases)
    func payloadTooLargeAsksForASplit(connection: TestConnection) async throws {
        try await withCollector { collector in
            collector.setMaximumBatchSize(1)
            let transmitter = try makeTransmitter(for: collector, connection: connection)
            #expect(await transmitter.transmit(batch) == .payloadTooLarge)
            #expect(collector.requests.first?.status == 413)
            #expect(collector.events.isEmpty)
        }
    }

    @Test(arguments: TestConnection.allCases, [301, 302, 307, 308])
    func redirectsAreNotFollowed(connection: TestConnection, code: Int) async throws {
        try await withCollector { collector in
            let elsewhere = collector.baseURL + "/elsewhere/v2/namespace/test-ns/"
            collector.script([.status(code, headers: ["Location": elsewhere])])
            let transmitter = try makeTransmitter(for: collector, connection: connection)
            #expect(await transmitter.transmit(batch) == .retry(after: nil))
            // Only the original request arrived: the client did not follow the Location.
            #expect(collector.requests.map(\.path) == ["/v2/namespace/test-ns/"])
        }
    }

    // MARK: Network failures

    @Test(arguments: TestConnection.allCases)
    func timeoutRetries(connection: TestConnection) async throws {
        try await withCollector { collector in
            collector.script([Fault.accept.delayed(by: 5)])
            let logger = RecordingLogger()
            let transmitter = try makeTransmitter(for: collector, connection: connection, logger: logger) {
                $0.timeout = 1
            }
            #expect(await transmitter.transmit(batch) == .retry(after: nil))
            #expect(logger.messages(at: .info).count == 1)
        }
    }

    @Test(arguments: TestConnection.allCases)
    func connectionClosedMidResponseRetriesAlthoughTheEventsArrived(connection: TestConnection) async throws {
        try await withCollector(wireFormat: .telemetryDeckWithEventIDs) { collector in
            collector.script([.closeMidResponse])
            let transmitter = try makeTransmitter(for: collector, connection: connection) {
                $0.wireFormat = .telemetryDeckWithEventIDs
            }
            #expect(await transmitter.transmit(batch) == .retry(after: nil))
            #expect(collector.events.map(\.id) == batch.map(\.id))
            #expect(collector.requests.first?.answerLost == true)
            // The re-send is recognised by id.
            #expect(await transmitter.transmit(batch) == .delivered)
            #expect(collector.eventCount == 2)
            #expect(collector.duplicateCount == 2)
        }
    }

    @Test(arguments: TestConnection.allCases)
    func connectionRefusedRetries(connection: TestConnection) async throws {
        let transmitter = try makeTransmitter(baseURL: nothingListensBaseURL, connection: connection)
        #expect(await transmitter.transmit(batch) == .retry(after: nil))
    }

    @Test(arguments: TestConnection.allCases)
    func networkFailuresAreLoggedAtInfo(connection: TestConnection) async throws {
        let logger = RecordingLogger()
        let transmitter = try makeTransmitter(baseURL: nothingListensBaseURL, connection: connection, logger: logger)
        _ = await transmitter.transmit(batch)
        let messages = logger.messages(at: .info)
        #expect(messages.count == 1)
        #expect(messages.first?.contains("Sending 2 events to \(transmitter.endpoint.absoluteString) failed") == true)
    }
}
#endif
