#if Tools
import Testing
import TelemetryKit
import TelemetryKitCollector
import TelemetryKitHTTP
import TelemetryKitTesting

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The transmitter against the real collector on loopback: no mocked URL loading.
@Suite struct HTTPEventTransmitterTests {
    private let batch = [Fixtures.event(number: 1), Fixtures.event(number: 2, sessionID: nil, floatValue: nil)]

    // MARK: Request shape

    @Test(
        arguments: TestConnection.allCases,
        [
            ("", "/v2/namespace/test-ns/"),
            ("/", "/v2/namespace/test-ns/"),
            ("/ingest", "/ingest/v2/namespace/test-ns/"),
            ("/ingest/", "/ingest/v2/namespace/test-ns/"),
            ("/a/b", "/a/b/v2/namespace/test-ns/"),
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
    func bodyIsTheJSONArrayOfTheBatch(connection: TestConnection) async throws {
        try await withCollector { collector in
            let transmitter = try makeTransmitter(for: collector, connection: connection)
            #expect(await transmitter.transmit(batch) == .delivered)
            let request = try #require(collector.requests.first)
            let body = try #require(try JSONValue.parse(request.body).array)
            #expect(body.count == 2)
            let first = try #require(body.first?.object)
            #expect(first["id"] == nil)
            #expect(first["receivedAt"] == .string("2024-06-15T14:00:00+0000"))
            #expect(first["payload"]?.object?["count"] == .number(3))
            #expect(first["payload"]?.object?["isPro"] == .bool(true))
            #expect(first["isTestMode"] == .string("false"))
            #expect(body.last?.object?["sessionID"] == nil)
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

    @Test(arguments: TestConnection.allCases)
    func anEmptyBatchSendsNothing(connection: TestConnection) async throws {
        try await withCollector { collector in
            let transmitter = try makeTransmitter(for: collector, connection: connection)
            #expect(await transmitter.transmit([]) == .delivered)
            #expect(collector.requests.isEmpty)
        }
    }

    // MARK: Status rules

    @Test(arguments: TestConnection.allCases, [200, 201, 202, 204])
    func successStatusesDeliver(connection: TestConnection, code: Int) async throws {
        try await withCollector { collector in
            collector.script([.status(code)])
            let transmitter = try makeTransmitter(for: collector, connection: connection)
            #expect(await transmitter.transmit(batch) == .delivered)
        }
    }

    @Test(arguments: TestConnection.allCases, [400, 401, 403, 404, 422, 501, 505])
    func permanentErrorsReject(connection: TestConnection, code: Int) async throws {
        try await withCollector { collector in
            collector.script([.status(code, body: "refused: reason \(code)")])
            let outcome = try await makeTransmitter(for: collector, connection: connection).transmit(batch)
            #expect(outcome == .rejected(RejectionReason("refused: reason \(code)", statusCode: code)))
        }
    }

    @Test(arguments: TestConnection.allCases)
    func rejectionWithoutBodyUsesTheStandardPhrase(connection: TestConnection) async throws {
        try await withCollector { collector in
            collector.script([.status(401, body: "")])
            let outcome = try await makeTransmitter(for: collector, connection: connection).transmit(batch)
            #expect(outcome == .rejected(RejectionReason("Unauthorized", statusCode: 401)))
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

    @Test(arguments: TestConnection.allCases, [301, 302, 307, 308, 408, 410, 418, 429, 500, 502, 503, 504, 599])
    func everythingElseRetries(connection: TestConnection, code: Int) async throws {
        try await withCollector { collector in
            collector.script([.status(code)])
            let transmitter = try makeTransmitter(for: collector, connection: connection)
            #expect(await transmitter.transmit(batch) == .retry(after: nil))
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

    // MARK: Retry-After

    @Test(arguments: TestConnection.allCases, [(429, "7", 7.0), (503, "120", 120), (503, "0", 0)])
    func retryAfterSecondsIsHonoured(
        connection: TestConnection,
        answer: (code: Int, header: String, expected: Double)
    ) async throws {
        let (code, header, expected) = answer
        try await withCollector { collector in
            collector.script([.status(code, retryAfter: header)])
            let transmitter = try makeTransmitter(for: collector, connection: connection)
            #expect(await transmitter.transmit(batch) == .retry(after: expected))
        }
    }

    @Test(
        arguments: TestConnection.allCases,
        [
            ("Mon, 01 Jan 2024 00:02:00 GMT", 120.0),
            ("Monday, 01-Jan-24 00:00:45 GMT", 45),
            ("Sun, 31 Dec 2023 23:59:00 GMT", 0),
        ]
    )
    func retryAfterHTTPDateIsHonoured(
        connection: TestConnection,
        answer: (header: String, expected: Double)
    ) async throws {
        let (header, expected) = answer
        try await withCollector { collector in
            collector.script([.status(503, retryAfter: header)])
            // ManualClock starts at 2024-01-01T00:00:00Z.
            let transmitter = try makeTransmitter(for: collector, connection: connection, clock: ManualClock())
            #expect(await transmitter.transmit(batch) == .retry(after: expected))
        }
    }

    @Test(arguments: TestConnection.allCases)
    func retryAfterIsCappedByTheConfiguredMaximum(connection: TestConnection) async throws {
        try await withCollector { collector in
            collector.script([.status(429, retryAfter: "999999")])
            let transmitter = try makeTransmitter(for: collector, connection: connection) { $0.maximumRetryAfter = 600 }
            #expect(await transmitter.transmit(batch) == .retry(after: 600))
        }
    }

    @Test(arguments: TestConnection.allCases, [500, 502])
    func retryAfterIsIgnoredOnOtherStatuses(connection: TestConnection, code: Int) async throws {
        try await withCollector { collector in
            collector.script([.status(code, retryAfter: "30")])
            let transmitter = try makeTransmitter(for: collector, connection: connection)
            #expect(await transmitter.transmit(batch) == .retry(after: nil))
        }
    }

    @Test(arguments: TestConnection.allCases)
    func unparseableRetryAfterFallsBackToBackoff(connection: TestConnection) async throws {
        try await withCollector { collector in
            collector.script([.status(503, retryAfter: "later, maybe")])
            let transmitter = try makeTransmitter(for: collector, connection: connection)
            #expect(await transmitter.transmit(batch) == .retry(after: nil))
        }
    }

    // MARK: Overrides

    @Test(arguments: TestConnection.allCases)
    func overrideRetriesAForbiddenBatch(connection: TestConnection) async throws {
        try await withCollector { collector in
            collector.script([.status(403)])
            let transmitter = try makeTransmitter(for: collector, connection: connection) {
                $0.customRetryForStatusCodes = [403: .retry]
            }
            #expect(await transmitter.transmit(batch) == .retry(after: nil))
        }
    }

    @Test(arguments: TestConnection.allCases)
    func overrideDropsAServerErrorBatch(connection: TestConnection) async throws {
        try await withCollector { collector in
            collector.script([.status(500, body: "boom")])
            let transmitter = try makeTransmitter(for: collector, connection: connection) {
                $0.customRetryForStatusCodes = [500: .drop]
            }
            #expect(await transmitter.transmit(batch) == .rejected(RejectionReason("boom", statusCode: 500)))
        }
    }

    @Test(arguments: TestConnection.allCases)
    func overrideCanDropInsteadOfSplitting(connection: TestConnection) async throws {
        try await withCollector { collector in
            collector.script([.status(413, body: "too big")])
            let transmitter = try makeTransmitter(for: collector, connection: connection) {
                $0.customRetryForStatusCodes = [413: .drop]
            }
            #expect(await transmitter.transmit(batch) == .rejected(RejectionReason("too big", statusCode: 413)))
        }
    }

    @Test(arguments: TestConnection.allCases)
    func overrideRetryStillReadsRetryAfterOn503(connection: TestConnection) async throws {
        try await withCollector { collector in
            collector.script([.status(503, retryAfter: "5"), .status(200)])
            let transmitter = try makeTransmitter(for: collector, connection: connection) {
                $0.customRetryForStatusCodes = [503: .retry, 200: .drop]
            }
            #expect(await transmitter.transmit(batch) == .retry(after: 5))
            // 2xx cannot be overridden: a delivered batch is delivered.
            #expect(await transmitter.transmit(batch) == .delivered)
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
        let collector = try await Collector.start()
        let transmitter = try makeTransmitter(for: collector, connection: connection)
        await collector.shutdown()
        #expect(await transmitter.transmit(batch) == .retry(after: nil))
    }

    @Test(arguments: TestConnection.allCases)
    func networkFailuresAreLoggedAtInfo(connection: TestConnection) async throws {
        let collector = try await Collector.start()
        let logger = RecordingLogger()
        let transmitter = try makeTransmitter(for: collector, connection: connection, logger: logger)
        await collector.shutdown()
        _ = await transmitter.transmit(batch)
        let messages = logger.messages(at: .info)
        #expect(messages.count == 1)
        #expect(messages.first?.contains("Sending 2 events to \(transmitter.endpoint.absoluteString) failed") == true)
    }
}
#endif
