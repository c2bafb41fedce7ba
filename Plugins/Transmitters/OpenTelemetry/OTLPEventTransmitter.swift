#if OpenTelemetry
public import TelemetryKit
public import TelemetryKitHTTP
import TelemetryKitSupport

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Sends each batch from a destination's durable queue as one OTLP/HTTP log export:
/// `POST {endpoint}/v1/logs` with an `ExportLogsServiceRequest`, one `LogRecord` per event.
///
/// An OpenTelemetry Collector then fans the events out to whatever the fleet already uses
/// (Kafka, ClickHouse, Loki, a vendor). Unlike an exporter with an in-memory batch queue,
/// a batch leaves the cache only when the receiver acknowledged it (2xx): a restart, a
/// collector outage or a reset connection costs nothing.
///
/// ```swift
/// let otlp = try OTLPEventTransmitter(endpoint: URL(string: "http://otel-collector:4318")!,
///                                     serviceName: "checkout")
/// let destination = Destination(id: "otlp", transmitter: otlp,
///                               cache: try SQLiteEventCache(fileURL: cacheDirectory.appending(path: "otlp.sqlite")))
/// ```
///
/// Status rules, as the OTLP specification gives them (``Configuration/customRetryForStatusCodes``
/// overrides any code but 2xx):
///
/// | answer | outcome |
/// |---|---|
/// | 2xx | `.delivered`; a partial success in the body is counted (``partialSuccesses``) and logged once per response |
/// | 429, 502, 503, 504 | `.retry(after:)`, with `Retry-After` (seconds or HTTP date) when present |
/// | 413 | `.payloadTooLarge` (the dispatcher splits the batch) |
/// | other 4xx and 5xx | `.rejected` with the status code and the server's message |
/// | 1xx, 3xx (redirects are not followed), network errors, timeouts | `.retry(after: nil)` |
public struct OTLPEventTransmitter: EventTransmitting {
    /// Status codes OTLP calls retryable: the receiver is overloaded or a proxy failed.
    public static let retryableStatusCodes: Set<Int> = [429, 502, 503, 504]

    public let configuration: Configuration
    /// The URL every batch is posted to: `{endpoint}/v1/logs`.
    public let logsURL: URL
    /// The body writer, with the configuration's resource.
    public let encoder: OTLPLogsEncoder

    private let connection: any HTTPConnection
    private let logger: any Logging
    private let clock: any TelemetryClock
    private let headers: [HTTPHeader]
    private let gzipHeaders: [HTTPHeader]
    private let partialSuccessCounter = Locked(OTLPPartialSuccesses())

    /// Creates a transmitter to an OTLP/HTTP receiver with the defaults for everything else
    /// (protobuf, no compression, 10 s timeout).
    ///
    /// - Throws: ``OTLPConfigurationError`` for an endpoint that is not http(s) with a host,
    ///   or a blank service name.
    public init(
        endpoint: URL,
        serviceName: String,
        connection: (any HTTPConnection)? = nil,
        logger: any Logging = StandardErrorLogger()
    ) throws(OTLPConfigurationError) {
        try self.init(
            configuration: Configuration(endpoint: endpoint, serviceName: serviceName),
            connection: connection,
            logger: logger
        )
    }

    /// Creates a transmitter from a full configuration.
    ///
    /// - Parameters:
    ///   - configuration: endpoint, resource, encoding, compression, timeout, headers.
    ///   - connection: the network layer; default `URLSessionHTTPConnection` (or
    ///     `AsyncHTTPClientConnection` from `TelemetryKitAsyncHTTPClient` for pooled connections).
    ///   - logger: receives network failures (info) and partial successes (warning); rejections are
    ///     logged by the dispatcher.
    ///   - clock: the current time for `Retry-After` dates.
    /// - Throws: ``OTLPConfigurationError`` for an endpoint that is not http(s) with a host,
    ///   or a blank service name.
    public init(
        configuration: Configuration,
        connection: (any HTTPConnection)? = nil,
        logger: any Logging = StandardErrorLogger(),
        clock: any TelemetryClock = SystemClock()
    ) throws(OTLPConfigurationError) {
        guard !configuration.serviceName.trimmingWhitespace.isEmpty else { throw .blankServiceName }
        self.logsURL = try Self.logsURL(for: configuration.endpoint)
        self.configuration = configuration
        self.encoder = OTLPLogsEncoder(resourceAttributes: configuration.resource, encoding: configuration.encoding)
        self.connection = connection ?? URLSessionHTTPConnection()
        self.logger = logger
        self.clock = clock
        var headers = [
            HTTPHeader("Content-Type", configuration.encoding.contentType),
            HTTPHeader("Accept", configuration.encoding.contentType),
            HTTPHeader("User-Agent", "\(SDKInfo.name)/\(SDKInfo.version)"),
        ]
        for (name, value) in configuration.headers.sorted(by: { $0.key < $1.key }) {
            headers.append(HTTPHeader(name, value))
        }
        self.headers = headers
        self.gzipHeaders = headers + [HTTPHeader("Content-Encoding", "gzip")]
    }

    /// What receivers refused inside accepted (2xx) exports, since this transmitter was made.
    public var partialSuccesses: OTLPPartialSuccesses {
        partialSuccessCounter.current
    }

    public func transmit(_ batch: [Event]) async -> TransmissionOutcome {
        guard !batch.isEmpty else { return .delivered }
        let request = makeRequest(for: batch)
        let response: HTTPResponse
        do {
            response = try await connection.send(request)
        } catch {
            logger.log(.info, "Exporting \(batch.count) events to \(logsURL.absoluteString) failed: \(error)")
            return .retry(after: nil)
        }
        let outcome = outcome(for: response)
        switch outcome {
        case .delivered:
            recordPartialSuccess(in: response, batchCount: batch.count)
        case .rejected, .payloadTooLarge, .retry:
            // A rejection is logged once, by the dispatcher, with this outcome's reason.
            break
        }
        return outcome
    }

    /// The request that carries `batch`: headers, body in the configured encoding, gzip when
    /// configured (plain when compression fails).
    public func makeRequest(for batch: [Event]) -> HTTPRequest {
        HTTPRequest.post(
            encoder.encode(batch),
            to: logsURL,
            headers: headers,
            gzipHeaders: gzipHeaders,
            compression: configuration.compression,
            timeout: configuration.timeout,
            logger: logger,
            what: "the export"
        )
    }

    /// Maps a response to an outcome with the OTLP status rules and the configured overrides.
    public func outcome(for response: HTTPResponse) -> TransmissionOutcome {
        let status = response.statusCode
        if (200..<300).contains(status) { return .delivered }
        if let rule = configuration.customRetryForStatusCodes[status] {
            switch rule {
            case .retry: return .retry(after: retryAfter(in: response))
            case .drop: return .rejected(RejectionReason(reasonText(for: response), statusCode: status))
            }
        }
        if Self.retryableStatusCodes.contains(status) { return .retry(after: retryAfter(in: response)) }
        if status == 413 { return .payloadTooLarge }
        if (400..<600).contains(status) {
            return .rejected(RejectionReason(reasonText(for: response), statusCode: status))
        }
        return .retry(after: nil)
    }

    /// Counts and logs (once for this response) what a 2xx answer says it refused.
    private func recordPartialSuccess(in response: HTTPResponse, batchCount: Int) {
        let partial: OTLPExportResponse.PartialSuccess
        do {
            guard let decoded = try OTLPExportResponse.partialSuccess(in: response) else { return }
            partial = decoded
        } catch {
            logger.log(.warning, "The OTLP receiver accepted \(batchCount) events with an unreadable answer: \(error)")
            return
        }
        partialSuccessCounter.withLock { counts in
            counts.responses += 1
            counts.rejectedLogRecords += Int(clamping: partial.rejectedLogRecords)
            if !partial.errorMessage.isEmpty { counts.lastErrorMessage = partial.errorMessage }
        }
        let message = partial.errorMessage.isEmpty ? "no message" : partial.errorMessage
        logger.log(
            .warning,
            "The OTLP receiver refused \(partial.rejectedLogRecords) of \(batchCount) log records: \(message)"
        )
    }

    private func retryAfter(in response: HTTPResponse) -> Double? {
        guard let value = response.value(forHeader: "Retry-After"),
            let seconds = RetryAfter.seconds(from: value, now: clock.now)
        else { return nil }
        return min(seconds, max(0, configuration.maximumRetryAfter))
    }

    /// The server's explanation (a `google.rpc.Status` message, first 200 characters of a
    /// text body) or the status code.
    private func reasonText(for response: HTTPResponse) -> String {
        if let status = OTLPExportResponse.statusMessage(in: response), !status.isEmpty { return status }
        let body = String(decoding: response.body.prefix(200), as: UTF8.self).trimmingWhitespace
        if !body.isEmpty, !body.utf8.contains(where: { $0 < 0x09 }) { return body }
        return "status \(response.statusCode)"
    }

    /// `{endpoint}/v1/logs`, keeping a path in the endpoint.
    static func logsURL(for endpoint: URL) throws(OTLPConfigurationError) -> URL {
        guard var components = URLComponents(url: endpoint, resolvingAgainstBaseURL: false) else {
            throw .malformedEndpoint(endpoint.absoluteString, reason: "it is not a valid URL")
        }
        let scheme = (components.scheme ?? "").lowercased()
        guard scheme == "http" || scheme == "https" else { throw .unsupportedScheme(scheme) }
        guard let host = components.host, !host.isEmpty else {
            throw .malformedEndpoint(endpoint.absoluteString, reason: "it has no host")
        }
        guard components.query == nil, components.fragment == nil else {
            throw .malformedEndpoint(endpoint.absoluteString, reason: "it must not have a query or a fragment")
        }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        components.percentEncodedPath = path + "/v1/logs"
        guard let url = components.url else {
            throw .malformedEndpoint(endpoint.absoluteString, reason: "it is not a valid URL")
        }
        return url
    }
}

/// What OTLP receivers refused inside accepted exports (partial successes).
public struct OTLPPartialSuccesses: Sendable, Hashable {
    /// Responses that reported a partial success.
    public var responses: Int = 0
    /// Log records those responses said were refused (`rejected_log_records`); they are not
    /// sent again, as the OTLP specification says.
    public var rejectedLogRecords: Int = 0
    /// The last `error_message` a receiver gave, if any.
    public var lastErrorMessage: String?

    public init() {}
}
#endif
