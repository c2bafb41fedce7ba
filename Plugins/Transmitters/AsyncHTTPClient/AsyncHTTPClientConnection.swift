#if AsyncHTTPClient
public import AsyncHTTPClient
import NIOCore
import NIOHTTP1
public import TelemetryKitHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An ``HTTPConnection`` on swift-server's AsyncHTTPClient: a pool of kept-alive connections on
/// SwiftNIO, for ``HTTPEventTransmitter`` on servers and on Linux.
///
/// `URLSessionHTTPConnection` on Linux opens a connection per request, because
/// FoundationNetworking stalls a request re-sent on a connection the server closed. This
/// connection keeps its connections instead: SwiftNIO learns of a server's close when it
/// happens, so a closed connection is not reused; and when the close races a request (the
/// server's keep-alive timeout firing as the request goes out), the request fails at once and
/// the dispatcher sends the batch again — there is no hidden re-send to stall.
///
/// ```swift
/// let transmitter = try HTTPEventTransmitter(
///     configuration: .init(namespace: "my-namespace"),
///     connection: AsyncHTTPClientConnection()
/// )
/// ```
///
/// Redirects are not followed and bodies are not decompressed, as ``HTTPConnection``
/// requires; `request.timeout` bounds the whole exchange, response body included.
public final class AsyncHTTPClientConnection: HTTPConnection {
    /// The largest response body read; ingest answers are a few bytes, a larger body is a
    /// misbehaving server and counts as a failed exchange.
    public static let maximumResponseBytes = 1 << 20

    private let client: HTTPClient
    private let ownsClient: Bool

    /// Creates a connection with its own `HTTPClient` on the shared event loop group, shut
    /// down when this connection is released.
    public init() {
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        configuration.decompression = .disabled
        self.client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        self.ownsClient = true
    }

    /// Sends through an app's own `client` (sharing its pool, proxy and TLS settings); the app
    /// shuts it down. Give it `redirectConfiguration = .disallow`: a followed redirect turns
    /// the POST into a request elsewhere instead of reaching the status rules.
    public init(client: HTTPClient) {
        self.client = client
        self.ownsClient = false
    }

    deinit {
        // The client stays alive until its shutdown completes (it holds itself meanwhile).
        if ownsClient { client.shutdown().whenComplete { _ in } }
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let outgoing = Self.clientRequest(for: request)
        let seconds = max(0.001, request.timeout)
        let deadline = NIODeadline.now() + .nanoseconds(Int64(seconds * 1_000_000_000))
        let client = self.client
        // The deadline of `execute` ends with the response head; the race with a sleep also
        // bounds reading the body.
        return try await withThrowingTaskGroup(of: HTTPResponse?.self) { group in
            group.addTask {
                let response = try await client.execute(outgoing, deadline: deadline)
                let body = try await response.body.collect(upTo: Self.maximumResponseBytes)
                var headers = [String: String]()
                for header in response.headers {
                    let name = header.name.lowercased()
                    headers[name] = headers[name].map { "\($0), \(header.value)" } ?? header.value
                }
                return HTTPResponse(
                    statusCode: Int(response.status.code),
                    headers: headers,
                    body: Data(body.readableBytesView)
                )
            }
            group.addTask {
                try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let response = first else {
                throw HTTPConnectionError("The request timed out after \(seconds) s.")
            }
            return response
        }
    }

    private static func clientRequest(for request: HTTPRequest) -> HTTPClientRequest {
        var outgoing = HTTPClientRequest(url: request.url.absoluteString)
        outgoing.method = HTTPMethod(rawValue: request.method)
        for header in request.headers {
            outgoing.headers.add(name: header.name, value: header.value)
        }
        if !request.body.isEmpty || request.method == "POST" {
            outgoing.body = .bytes(ByteBuffer(bytes: request.body))
        }
        return outgoing
    }
}
#endif
