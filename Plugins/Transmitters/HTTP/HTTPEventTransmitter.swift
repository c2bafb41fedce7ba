public import TelemetryKit
import TelemetryKitSupport

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Sends batches to the TelemetryDeck ingest API: `POST {apiBaseURL}/v2/namespace/{namespace}/`
/// with a JSON array of events in TelemetryDeck's own form (see ``EventWireFormat``).
///
/// ```swift
/// let transmitter = try HTTPEventTransmitter(
///     configuration: .init(apiBaseURL: "https://nom.telemetrydeck.com", namespace: "my-namespace")
/// )
/// let destination = Destination(id: "telemetrydeck", transmitter: transmitter, cache: cache)
/// ```
///
/// Status rules (``Configuration/customRetryForStatusCodes`` overrides any code but 2xx):
///
/// | answer | outcome |
/// |---|---|
/// | 2xx | `.delivered` |
/// | 400, 401, 403, 404, 422, 501, 505 | `.rejected` with the status code |
/// | 413 | `.payloadTooLarge` (the dispatcher splits the batch) |
/// | 429, 503 | `.retry(after:)` with `Retry-After` (seconds or HTTP date) when present |
/// | anything else, network errors, timeouts | `.retry(after: nil)` |
public struct HTTPEventTransmitter: EventTransmitting {
    /// Status codes that reject a batch for good (the request itself is wrong).
    public static let rejectingStatusCodes: Set<Int> = [400, 401, 403, 404, 422, 501, 505]
    /// Status codes whose `Retry-After` header is honoured.
    public static let retryAfterStatusCodes: Set<Int> = [429, 503]

    public let configuration: Configuration
    /// The ingest URL every batch is posted to.
    public let endpoint: URL

    private let connection: any HTTPConnection
    private let logger: any Logging
    private let clock: any TelemetryClock
    private let headers: [HTTPHeader]
    private let gzipHeaders: [HTTPHeader]

    /// Creates a transmitter, checking the endpoint once.
    ///
    /// - Parameters:
    ///   - configuration: base URL, namespace, timeout, compression and status overrides.
    ///   - connection: the network layer; default ``URLSessionHTTPConnection``.
    ///   - logger: receives network failures (info); rejections are logged by the dispatcher.
    ///   - clock: the current time for `Retry-After` dates.
    /// - Throws: ``HTTPEndpointError`` for a malformed base URL, an unsupported scheme,
    ///   plain `http://` to a non-loopback host without opt-in, or a blank namespace.
    public init(
        configuration: Configuration,
        connection: (any HTTPConnection)? = nil,
        logger: any Logging = StandardErrorLogger(),
        clock: any TelemetryClock = SystemClock()
    ) throws(HTTPEndpointError) {
        self.endpoint = try HTTPEndpoint.ingestURL(
            baseURL: configuration.apiBaseURL,
            namespace: configuration.namespace,
            allowsInsecureHTTP: configuration.allowsInsecureHTTP
        )
        self.configuration = configuration
        self.connection = connection ?? URLSessionHTTPConnection()
        self.logger = logger
        self.clock = clock
        var headers = [
            HTTPHeader("Content-Type", "application/json"),
            HTTPHeader("Accept", "application/json"),
            HTTPHeader("User-Agent", "\(SDKInfo.name)/\(SDKInfo.version)"),
        ]
        for (name, value) in configuration.additionalHeaders.sorted(by: { $0.key < $1.key }) {
            headers.append(HTTPHeader(name, value))
        }
        self.headers = headers
        self.gzipHeaders = headers + [HTTPHeader("Content-Encoding", "gzip")]
    }

    public func transmit(_ batch: [Event]) async -> TransmissionOutcome {
        guard !batch.isEmpty else { return .delivered }
        let request = makeRequest(for: batch)
        let response: HTTPResponse
        do {
            response = try await connection.send(request)
        } catch {
            logger.log(.info, "Sending \(batch.count) events to \(endpoint.absoluteString) failed: \(error)")
            return .retry(after: nil)
        }
        // A rejection is not logged here: the dispatcher logs it once, with the destination,
        // the count and this reason (status code and the server's message).
        return outcome(for: response)
    }

    /// The request that carries `batch`: headers, JSON body, gzip when configured.
    public func makeRequest(for batch: [Event]) -> HTTPRequest {
        HTTPRequest.post(
            EventWireEncoder.encode(batch, format: configuration.wireFormat),
            to: endpoint,
            headers: headers,
            gzipHeaders: gzipHeaders,
            compression: configuration.compression,
            timeout: configuration.timeout,
            logger: logger,
            what: "the batch"
        )
    }

    /// Maps a response to an outcome with the status rules and the configured overrides.
    public func outcome(for response: HTTPResponse) -> TransmissionOutcome {
        let status = response.statusCode
        if (200..<300).contains(status) { return .delivered }
        if let rule = configuration.customRetryForStatusCodes[status] {
            switch rule {
            case .retry: return .retry(after: retryAfter(in: response))
            case .drop: return .rejected(RejectionReason(reasonText(for: response), statusCode: status))
            }
        }
        if status == 413 { return .payloadTooLarge }
        if Self.rejectingStatusCodes.contains(status) {
            return .rejected(RejectionReason(reasonText(for: response), statusCode: status))
        }
        return .retry(after: retryAfter(in: response))
    }

    private func retryAfter(in response: HTTPResponse) -> Double? {
        guard Self.retryAfterStatusCodes.contains(response.statusCode),
            let value = response.value(forHeader: "Retry-After"),
            let seconds = RetryAfter.seconds(from: value, now: clock.now)
        else { return nil }
        return min(seconds, max(0, configuration.maximumRetryAfter))
    }

    /// The server's explanation (first 200 characters of the body) or the standard phrase.
    private func reasonText(for response: HTTPResponse) -> String {
        let body = String(decoding: response.body.prefix(200), as: UTF8.self).trimmingWhitespace
        if !body.isEmpty { return body }
        return Self.reasonPhrases[response.statusCode] ?? "status \(response.statusCode)"
    }

    private static let reasonPhrases: [Int: String] = [
        400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 410: "Gone",
        413: "Content Too Large", 422: "Unprocessable Content", 429: "Too Many Requests",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
        504: "Gateway Timeout", 505: "HTTP Version Not Supported",
    ]
}
