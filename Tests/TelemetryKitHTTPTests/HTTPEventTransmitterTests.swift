import TelemetryKit
import TelemetryKitHTTP
import TelemetryKitTesting
import TelemetryKitTransformations
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The transmitter's behaviour over a stub connection: the request it builds and how it
/// reads each answer. The same transmitter through the real collector is in
/// `CollectorRoundTripTests` (Tools trait).
@Suite struct HTTPEventTransmitterTests {
    private let batch = [Fixtures.event(number: 1), Fixtures.event(number: 2, sessionID: nil, floatValue: nil)]

    /// A transmitter posting to `https://ingest.example` (plus `path`) with namespace `test-ns`.
    private func transmitter(
        over connection: StubHTTPConnection,
        path: String = "",
        clock: any TelemetryClock = ManualClock(),
        logger: any Logging = SilentLogger(),
        configure: (inout HTTPEventTransmitter.Configuration) -> Void = { _ in }
    ) throws -> HTTPEventTransmitter {
        var configuration = HTTPEventTransmitter.Configuration(
            apiBaseURL: "https://ingest.example" + path,
            namespace: "test-ns"
        )
        configure(&configuration)
        return try HTTPEventTransmitter(
            configuration: configuration,
            connection: connection,
            logger: logger,
            clock: clock
        )
    }

    /// The one request `connection` received.
    private func onlyRequest(_ connection: StubHTTPConnection) throws -> HTTPRequest {
        let requests = connection.requests
        try #require(requests.count == 1, "expected one request, got \(requests.count)")
        return requests[0]
    }

    // MARK: Request shape

    @Test(arguments: [
        ("", "https://ingest.example/v2/namespace/test-ns/"),
        ("/", "https://ingest.example/v2/namespace/test-ns/"),
        ("/ingest", "https://ingest.example/ingest/v2/namespace/test-ns/"),
        ("/ingest/", "https://ingest.example/ingest/v2/namespace/test-ns/"),
        ("/a/b", "https://ingest.example/a/b/v2/namespace/test-ns/"),
    ])
    func postsToTheComposedURL(path: String, expected: String) async throws {
        let connection = StubHTTPConnection()
        #expect(try await transmitter(over: connection, path: path).transmit(batch) == .delivered)
        let request = try onlyRequest(connection)
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == expected)
    }

    @Test func sendsJSONHeadersThenTheConfiguredExtrasSortedByName() async throws {
        let connection = StubHTTPConnection()
        let transmitter = try transmitter(over: connection) {
            $0.additionalHeaders = ["X-Trace": "t-9", "X-Api-Key": "secret-1"]
        }
        #expect(await transmitter.transmit(batch) == .delivered)
        #expect(
            try onlyRequest(connection).headers == [
                HTTPHeader("Content-Type", "application/json"),
                HTTPHeader("Accept", "application/json"),
                HTTPHeader("User-Agent", "TelemetryKit/\(SDKInfo.version)"),
                HTTPHeader("X-Api-Key", "secret-1"),
                HTTPHeader("X-Trace", "t-9"),
            ]
        )
    }

    @Test(arguments: [(nil, 30.0), (7.5, 7.5)])
    func theRequestCarriesTheConfiguredTimeout(configured: Double?, expected: Double) async throws {
        let connection = StubHTTPConnection()
        let transmitter = try transmitter(over: connection) { configuration in
            if let configured { configuration.timeout = configured }
        }
        _ = await transmitter.transmit(batch)
        #expect(try onlyRequest(connection).timeout == expected)
    }

    @Test func theBodyIsTheJSONArrayOfTheBatchAsTheServiceReadsIt() async throws {
        let connection = StubHTTPConnection()
        #expect(try await transmitter(over: connection).transmit(batch) == .delivered)
        let bytes = Array(try onlyRequest(connection).body)
        let body = try #require(try JSONValue.parse(bytes).arrayValue)
        #expect(body.count == 2)
        let first = try #require(body.first?.objectValue)
        #expect(first["id"] == nil)
        #expect(first["appID"] == .string("APP-ID"))
        #expect(first["receivedAt"] == .string("2024-06-15T14:00:00+0000"))
        #expect(first["payload"]?.objectValue?["count"] == .int(3))
        #expect(first["payload"]?.objectValue?["ratio"] == .double(0.25))
        #expect(first["payload"]?.objectValue?["isPro"] == .bool(true))
        #expect(first["isTestMode"] == .string("false"))
        #expect(body.last?.objectValue?["sessionID"] == nil)
        #expect(try ServiceEvent.decodeBody(bytes) == batch.map(ServiceEvent.init(expecting:)))
    }

    @Test func theGoldenBatchIsSentByteForByte() async throws {
        let connection = StubHTTPConnection()
        #expect(try await transmitter(over: connection).transmit(TelemetryDeckWireTests.events) == .delivered)
        let body = String(decoding: try onlyRequest(connection).body, as: UTF8.self)
        #expect(body == TelemetryDeckWireTests.telemetryDeckBody)
    }

    @Test func theFormWithEventIDsSendsEachEventsID() async throws {
        let connection = StubHTTPConnection()
        let transmitter = try transmitter(over: connection) { $0.wireFormat = .telemetryDeckWithEventIDs }
        #expect(await transmitter.transmit(batch) == .delivered)
        let body = try #require(try JSONValue.parse(try onlyRequest(connection).body).arrayValue)
        #expect(body.count == 2)
        #expect(body.compactMap { $0.objectValue?["id"]?.stringValue } == batch.map(\.id.uuidString))
    }

    @Test func gzipSendsTheCompressedJSONWithItsHeader() async throws {
        let connection = StubHTTPConnection()
        let events = (0..<50).map { Fixtures.event(number: $0, payload: Fixtures.defaultProcessorsPayload) }
        let transmitter = try transmitter(over: connection) { $0.compression = .gzip }
        #expect(await transmitter.transmit(events) == .delivered)
        let request = try onlyRequest(connection)
        #expect(request.headers.last == HTTPHeader("Content-Encoding", "gzip"))
        #expect(request.value(forHeader: "content-type") == "application/json")
        let json = EventWireEncoder.encode(events)
        #expect(Array(request.body) == (try Gzip.compress(json)))
        #expect(request.body.count * 5 < json.count)
    }

    @Test func withoutCompressionThereIsNoContentEncoding() async throws {
        let connection = StubHTTPConnection()
        _ = try await transmitter(over: connection).transmit(batch)
        let request = try onlyRequest(connection)
        #expect(request.value(forHeader: "Content-Encoding") == nil)
        #expect(Array(request.body) == EventWireEncoder.encode(batch))
    }

    @Test func anEmptyBatchSendsNothing() async throws {
        let connection = StubHTTPConnection()
        #expect(try await transmitter(over: connection).transmit([]) == .delivered)
        #expect(connection.requests.isEmpty)
    }

    // MARK: Status rules

    @Test(arguments: [200, 201, 202, 204, 299])
    func successStatusesDeliver(code: Int) async throws {
        let connection = StubHTTPConnection([.status(code)])
        #expect(try await transmitter(over: connection).transmit(batch) == .delivered)
    }

    @Test(arguments: [400, 401, 403, 404, 422, 501, 505])
    func permanentErrorsRejectWithTheServersReasonAndNoWarning(code: Int) async throws {
        let connection = StubHTTPConnection([.status(code, body: "refused: reason \(code)")])
        let logger = RecordingLogger()
        let outcome = try await transmitter(over: connection, logger: logger).transmit(batch)
        #expect(outcome == .rejected(RejectionReason("refused: reason \(code)", statusCode: code)))
        // The dispatcher logs the rejection (once, with this reason); the transmitter does not.
        #expect(logger.warnings.isEmpty)
    }

    @Test(arguments: [(401, "Unauthorized"), (404, "Not Found"), (422, "Unprocessable Content")])
    func aRejectionWithoutBodyUsesTheStandardPhrase(code: Int, phrase: String) async throws {
        let connection = StubHTTPConnection([.status(code, body: " \n ")])
        let outcome = try await transmitter(over: connection).transmit(batch)
        #expect(outcome == .rejected(RejectionReason(phrase, statusCode: code)))
    }

    @Test func aRejectionReasonIsTheFirst200CharactersOfTheBody() async throws {
        let body = String(repeating: "a", count: 200) + String(repeating: "b", count: 100)
        let connection = StubHTTPConnection([.status(400, body: body)])
        let outcome = try await transmitter(over: connection).transmit(batch)
        #expect(outcome == .rejected(RejectionReason(String(repeating: "a", count: 200), statusCode: 400)))
    }

    @Test func payloadTooLargeAsksForASplit() async throws {
        let connection = StubHTTPConnection([.status(413, body: "too big")])
        #expect(try await transmitter(over: connection).transmit(batch) == .payloadTooLarge)
    }

    @Test(arguments: [301, 302, 307, 308, 408, 410, 418, 429, 500, 502, 503, 504, 599])
    func everythingElseRetries(code: Int) async throws {
        let connection = StubHTTPConnection([.status(code)])
        #expect(try await transmitter(over: connection).transmit(batch) == .retry(after: nil))
    }

    // MARK: Retry-After

    @Test(arguments: [(429, "7", 7.0), (503, "120", 120), (503, "0", 0)])
    func retryAfterSecondsIsHonoured(code: Int, header: String, expected: Double) async throws {
        let connection = StubHTTPConnection([.status(code, headers: ["Retry-After": header])])
        #expect(try await transmitter(over: connection).transmit(batch) == .retry(after: expected))
    }

    @Test(arguments: [
        ("Mon, 01 Jan 2024 00:02:00 GMT", 120.0),
        ("Monday, 01-Jan-24 00:00:45 GMT", 45),
        ("Sun, 31 Dec 2023 23:59:00 GMT", 0),
    ])
    func retryAfterHTTPDateIsHonoured(header: String, expected: Double) async throws {
        let connection = StubHTTPConnection([.status(503, headers: ["retry-after": header])])
        // ManualClock starts at 2024-01-01T00:00:00Z.
        let transmitter = try transmitter(over: connection, clock: ManualClock())
        #expect(await transmitter.transmit(batch) == .retry(after: expected))
    }

    @Test func retryAfterIsCappedByTheConfiguredMaximum() async throws {
        let connection = StubHTTPConnection([.status(429, headers: ["Retry-After": "999999"])])
        let transmitter = try transmitter(over: connection) { $0.maximumRetryAfter = 600 }
        #expect(await transmitter.transmit(batch) == .retry(after: 600))
    }

    @Test(arguments: [500, 502])
    func retryAfterIsIgnoredOnOtherStatuses(code: Int) async throws {
        let connection = StubHTTPConnection([.status(code, headers: ["Retry-After": "30"])])
        #expect(try await transmitter(over: connection).transmit(batch) == .retry(after: nil))
    }

    @Test func unparseableRetryAfterFallsBackToBackoff() async throws {
        let connection = StubHTTPConnection([.status(503, headers: ["Retry-After": "later, maybe"])])
        #expect(try await transmitter(over: connection).transmit(batch) == .retry(after: nil))
    }

    // MARK: Overrides

    @Test func overrideRetriesAForbiddenBatch() async throws {
        let connection = StubHTTPConnection([.status(403)])
        let transmitter = try transmitter(over: connection) { $0.customRetryForStatusCodes = [403: .retry] }
        #expect(await transmitter.transmit(batch) == .retry(after: nil))
    }

    @Test func overrideDropsAServerErrorBatch() async throws {
        let connection = StubHTTPConnection([.status(500, body: "boom")])
        let transmitter = try transmitter(over: connection) { $0.customRetryForStatusCodes = [500: .drop] }
        #expect(await transmitter.transmit(batch) == .rejected(RejectionReason("boom", statusCode: 500)))
    }

    @Test func overrideCanDropInsteadOfSplitting() async throws {
        let connection = StubHTTPConnection([.status(413, body: "too big")])
        let transmitter = try transmitter(over: connection) { $0.customRetryForStatusCodes = [413: .drop] }
        #expect(await transmitter.transmit(batch) == .rejected(RejectionReason("too big", statusCode: 413)))
    }

    @Test func overrideRetryStillReadsRetryAfterOn503AndCannotUndoA2xx() async throws {
        let connection = StubHTTPConnection([.status(503, headers: ["Retry-After": "5"]), .status(200)])
        let transmitter = try transmitter(over: connection) {
            $0.customRetryForStatusCodes = [503: .retry, 200: .drop]
        }
        #expect(await transmitter.transmit(batch) == .retry(after: 5))
        #expect(await transmitter.transmit(batch) == .delivered)
    }

    // MARK: Failed exchanges (timeouts, refused or reset connections)

    @Test(arguments: ["The request timed out.", "connection refused", "connection reset by peer"])
    func aFailedExchangeRetriesAndIsLoggedOnceAtInfo(failure: String) async throws {
        let connection = StubHTTPConnection([.failure(HTTPConnectionError(failure))])
        let logger = RecordingLogger()
        let transmitter = try transmitter(over: connection, logger: logger)
        #expect(await transmitter.transmit(batch) == .retry(after: nil))
        #expect(
            logger.messages(at: .info) == [
                "Sending 2 events to https://ingest.example/v2/namespace/test-ns/ failed: \(failure)"
            ]
        )
        #expect(logger.warnings.isEmpty)
    }

    // MARK: Through a client

    @Test func aRejectedBatchIsLoggedOnceWithTheServersReason() async throws {
        // A refusal of the request as a whole (not of some events in it: those are split).
        let connection = StubHTTPConnection([.status(403, body: "refused: unknown app")])
        let logger = RecordingLogger()
        let client = TelemetryClient(
            configuration: .init(appID: "APP-ID"),
            destinations: [
                Destination(
                    id: "http",
                    transmitter: try transmitter(over: connection, logger: logger),
                    cache: InMemoryEventCache(),
                    policy: DeliveryPolicy(flushInterval: 3600, backoff: BackoffPolicy(jitter: 0))
                )
            ],
            storage: InMemoryProcessorStorage(),
            logger: logger,
            clock: ManualClock()
        )
        await client.start()
        for number in 0..<2 { client.event("Numbered", parameters: ["n": number]) }
        #expect(await client.flush() == .rejected(count: 2, remaining: 0))
        #expect(connection.requests.count == 1)
        #expect(logger.warnings == ["destination 'http' rejected 2 event(s): HTTP 403: refused: unknown app"])
        #expect(await client.stats.destinations["http"]?.rejected == 2)
        await client.shutdown()
    }

    @Test func theDispatcherHalvesABatchAnswered413UntilEveryEventIsDelivered() async throws {
        // The receiver takes at most two events per request.
        let connection = StubHTTPConnection()
        connection.respond { request in
            let count = (try? JSONValue.parse(request.body).arrayValue?.count) ?? 0
            return count > 2 ? .status(413) : .status(202)
        }
        let client = TelemetryClient(
            configuration: .init(appID: "APP-ID"),
            destinations: [
                Destination(
                    id: "http",
                    transmitter: try transmitter(over: connection),
                    cache: InMemoryEventCache(),
                    policy: DeliveryPolicy(flushInterval: 3600, backoff: BackoffPolicy(jitter: 0))
                )
            ],
            storage: InMemoryProcessorStorage(),
            logger: SilentLogger(),
            clock: ManualClock()
        )
        await client.start()
        for number in 0..<5 { client.event("Numbered", parameters: ["n": number]) }
        #expect(await client.flush() == .complete)

        let bodies = try connection.requests.map { try #require(try JSONValue.parse($0.body).arrayValue) }
        // 5 → 413; its first half (2) goes; the second (3) → 413, then 1 and 2.
        #expect(bodies.map(\.count) == [5, 2, 3, 1, 2])
        let delivered = bodies.filter { $0.count <= 2 }.joined().map { $0.objectValue?["payload"]?.objectValue?["n"] }
        #expect(delivered == [.int(0), .int(1), .int(2), .int(3), .int(4)])
        #expect(await client.stats.destinations["http"]?.delivered == 5)
        await client.shutdown()
    }
}
