// What the tests that talk to the loopback collector share: the HTTP transmitter's tests and
// the end-to-end tests (IntegrationTests). Only with the Tools trait, which brings the collector.
#if Tools
public import TelemetryKit
public import TelemetryKitCollector
public import TelemetryKitHTTP
public import Testing

#if canImport(Glibc)
import Glibc
#else
import Darwin
#endif

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

/// A loopback port held by a socket that is bound but does not listen: connections to it are
/// refused, and no other socket (another test's collector) can take it until ``release()``.
/// For a test whose endpoint is down first and up later at the same address: it releases
/// the port just before starting its collector there.
///
/// Why not a collector started and shut down to find a free port: from its shutdown to the
/// next start the port is free, and a test running meanwhile can start its collector on it.
public final class ReservedPort: Sendable {
    /// The reserved port.
    public let port: Int
    private let socket: Int32

    /// Binds a TCP socket to a free port on 127.0.0.1, without listening.
    public init() throws {
        #if canImport(Glibc)
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = Darwin.socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw ReservedPortError("socket() failed: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { address in
                bind(descriptor, address, length) == 0 && getsockname(descriptor, address, &length) == 0
            }
        }
        guard bound else {
            close(descriptor)
            throw ReservedPortError("bind() to 127.0.0.1 failed: errno \(errno)")
        }
        socket = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// `http://127.0.0.1:<port>`.
    public var baseURL: String { "http://127.0.0.1:\(port)" }

    /// Frees the port (closes the socket), for a server to bind it next.
    public func release() {
        close(socket)
    }
}

/// Why a ``ReservedPort`` could not be made.
public struct ReservedPortError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}

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
