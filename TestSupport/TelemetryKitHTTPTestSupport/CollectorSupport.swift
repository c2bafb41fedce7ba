// What the tests that talk to the loopback collector share: the HTTP transmitter's tests and
// the end-to-end tests (IntegrationTests). Only with the Tools trait, which brings the collector.
#if Tools
public import TelemetryKit
public import TelemetryKitCollector
public import TelemetryKitHTTP
public import Testing

#if AsyncHTTPClient
import TelemetryKitAsyncHTTPClient
#endif

/// The network layers the transmitter's tests run over: each test runs once per connection.
public enum TestConnection: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case urlSession
    #if AsyncHTTPClient
    case asyncHTTPClient
    #endif

    public var testDescription: String { rawValue }

    /// A new connection of this kind.
    public func make() -> any HTTPConnection {
        switch self {
        case .urlSession: return URLSessionHTTPConnection()
        #if AsyncHTTPClient
        case .asyncHTTPClient: return AsyncHTTPClientConnection()
        #endif
        }
    }

    /// Whether a request sent on a kept-alive connection just as the server closes it fails
    /// (and the dispatcher sends the batch again). AsyncHTTPClient does not re-send a POST by
    /// itself; URLSession on Linux opens a connection per request, so no request races a
    /// close, and Apple's URLSession re-sends such a request whole.
    public var requestRacingACloseFails: Bool {
        switch self {
        case .urlSession: return false
        #if AsyncHTTPClient
        case .asyncHTTPClient: return true
        #endif
        }
    }
}

/// Runs `body` with a fresh collector on an ephemeral loopback port, then shuts it down.
public func withCollector<Result>(
    wireFormat: Collector.WireFormat = .telemetryDeck,
    _ body: (Collector) async throws -> Result
) async throws -> Result {
    let collector = try await Collector.start(Collector.Configuration(wireFormat: wireFormat))
    do {
        let result = try await body(collector)
        await collector.shutdown()
        return result
    } catch {
        await collector.shutdown()
        throw error
    }
}

/// A transmitter posting to `collector` with namespace `test-ns`.
public func makeTransmitter(
    for collector: Collector,
    connection: TestConnection = .urlSession,
    path: String = "",
    clock: any TelemetryClock = SystemClock(),
    logger: any Logging = SilentLogger(),
    configure: (inout HTTPEventTransmitter.Configuration) -> Void = { _ in }
) throws -> HTTPEventTransmitter {
    try makeTransmitter(
        baseURL: collector.baseURL + path,
        connection: connection,
        clock: clock,
        logger: logger,
        configure: configure
    )
}

/// The base URL of a port where nothing listens: loopback's discard port, 9, which needs
/// privileges to bind, so no test's server can be there.
///
/// Why not a collector that was shut down: its ephemeral port goes back to the system, and a
/// test running at the same time can start its own collector on it; a request meant to fail
/// then reaches that collector, and both tests see what they did not expect.
public let nothingListensBaseURL = "http://127.0.0.1:9"

/// A transmitter posting to `baseURL` with namespace `test-ns`.
public func makeTransmitter(
    baseURL: String,
    connection: TestConnection = .urlSession,
    clock: any TelemetryClock = SystemClock(),
    logger: any Logging = SilentLogger(),
    configure: (inout HTTPEventTransmitter.Configuration) -> Void = { _ in }
) throws -> HTTPEventTransmitter {
    var configuration = HTTPEventTransmitter.Configuration(apiBaseURL: baseURL, namespace: "test-ns")
    configure(&configuration)
    return try HTTPEventTransmitter(
        configuration: configuration,
        connection: connection.make(),
        logger: logger,
        clock: clock
    )
}
#endif
