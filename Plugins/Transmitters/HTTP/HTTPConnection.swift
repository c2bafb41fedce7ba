#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Sends one HTTP request and returns the response: the network layer under
/// ``HTTPEventTransmitter``.
///
/// The default is ``URLSessionHTTPConnection``. Supply your own to route requests through an
/// app's networking stack, a proxy or a test server:
///
/// ```swift
/// struct MyConnection: HTTPConnection {
///     func send(_ request: HTTPRequest) async throws -> HTTPResponse { … }
/// }
/// let transmitter = try HTTPEventTransmitter(configuration: config, connection: MyConnection())
/// ```
///
/// ## Implementation requirements
/// - Return every response the server sent, whatever its status; throw only when no
///   complete response arrived (connection refused or reset, timeout, truncated body).
/// - Do not follow redirects: return the 3xx response.
/// - Honour `request.timeout` (seconds) for the whole exchange.
/// - Do not retry: the dispatcher decides when to send again.
public protocol HTTPConnection: Sendable {
    /// Sends `request` and returns the server's response.
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

/// An HTTP request as ``HTTPEventTransmitter`` builds it.
public struct HTTPRequest: Sendable, Hashable {
    public var url: URL
    public var method: String
    /// Header fields in sending order (names as written, e.g. `Content-Type`).
    public var headers: [HTTPHeader]
    public var body: Data
    /// The longest the exchange may take, in seconds.
    public var timeout: TimeInterval

    public init(
        url: URL,
        method: String = "POST",
        headers: [HTTPHeader] = [],
        body: Data = Data(),
        timeout: TimeInterval
    ) {
        self.url = url
        self.method = method
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }

    /// The value of the first header named `name` (case-insensitive).
    public func value(forHeader name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// One header field.
public struct HTTPHeader: Sendable, Hashable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// An HTTP response: status, headers and body.
public struct HTTPResponse: Sendable, Hashable {
    public var statusCode: Int
    /// Header fields keyed by lowercased name.
    public var headers: [String: String]
    public var body: Data

    /// Creates a response; header names are lowercased.
    public init(statusCode: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.statusCode = statusCode
        var lowercased = [String: String](minimumCapacity: headers.count)
        for (name, value) in headers { lowercased[name.lowercased()] = value }
        self.headers = lowercased
        self.body = body
    }

    /// The value of the header named `name` (case-insensitive).
    public func value(forHeader name: String) -> String? {
        headers[name.lowercased()]
    }
}

/// Errors of the default connection.
public struct HTTPConnectionError: Error, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
