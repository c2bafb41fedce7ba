#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension HTTPEventTransmitter {
    /// Where and how ``HTTPEventTransmitter`` sends events.
    ///
    /// ```swift
    /// var configuration = HTTPEventTransmitter.Configuration(namespace: "my-namespace")
    /// configuration.compression = .gzip
    /// configuration.customRetryForStatusCodes = [403: .retry, 500: .drop]
    /// ```
    public struct Configuration: Sendable, Hashable {
        /// The TelemetryDeck ingest API.
        public static let defaultAPIBaseURL = "https://nom.telemetrydeck.com"

        /// The API base URL; events go to `{apiBaseURL}/v2/namespace/{namespace}/`.
        ///
        /// A path is kept (`https://proxy.example/telemetry` works), a missing scheme
        /// means `https://`, and `http://` is refused for non-loopback hosts unless
        /// ``allowsInsecureHTTP`` is set.
        public var apiBaseURL: String
        /// The namespace segment of the ingest path.
        public var namespace: String
        /// The longest one request may take, in seconds. Default 30.
        public var timeout: TimeInterval
        /// Request body compression. Default `.none`.
        public var compression: Compression
        /// Allows plain `http://` to non-loopback hosts. Default `false`.
        public var allowsInsecureHTTP: Bool
        /// Per-status-code overrides of the status rules, like Snowplow's
        /// `customRetryForStatusCodes`: `[403: .retry]` keeps retrying a 403, `[500: .drop]`
        /// drops a batch answered with 500.
        public var customRetryForStatusCodes: [Int: StatusCodeRule]
        /// The longest `Retry-After` honoured, in seconds; longer values are capped so a
        /// misconfigured server cannot stall delivery for days. Default 3600.
        public var maximumRetryAfter: TimeInterval
        /// Extra header fields sent with every request (e.g. an API key for a proxy).
        public var additionalHeaders: [String: String]
        /// The JSON form of the events. Default ``EventWireFormat/telemetryDeck``, the only form
        /// TelemetryDeck's service accepts; ``EventWireFormat/telemetryDeckWithEventIDs`` adds
        /// event ids for receivers of your own that drop re-sent duplicates.
        public var wireFormat: EventWireFormat

        /// Creates a configuration.
        public init(
            apiBaseURL: String = Configuration.defaultAPIBaseURL,
            namespace: String,
            timeout: TimeInterval = 30,
            compression: Compression = .none,
            allowsInsecureHTTP: Bool = false,
            customRetryForStatusCodes: [Int: StatusCodeRule] = [:],
            maximumRetryAfter: TimeInterval = 3600,
            additionalHeaders: [String: String] = [:],
            wireFormat: EventWireFormat = .telemetryDeck
        ) {
            self.apiBaseURL = apiBaseURL
            self.namespace = namespace
            self.timeout = timeout
            self.compression = compression
            self.allowsInsecureHTTP = allowsInsecureHTTP
            self.customRetryForStatusCodes = customRetryForStatusCodes
            self.maximumRetryAfter = maximumRetryAfter
            self.additionalHeaders = additionalHeaders
            self.wireFormat = wireFormat
        }

        /// Creates a configuration from a `URL` base (e.g. `Telemetry.Config.apiBaseURL`).
        public init(
            apiBaseURL: URL,
            namespace: String,
            timeout: TimeInterval = 30,
            compression: Compression = .none,
            allowsInsecureHTTP: Bool = false,
            customRetryForStatusCodes: [Int: StatusCodeRule] = [:],
            maximumRetryAfter: TimeInterval = 3600,
            additionalHeaders: [String: String] = [:],
            wireFormat: EventWireFormat = .telemetryDeck
        ) {
            self.init(
                apiBaseURL: apiBaseURL.absoluteString,
                namespace: namespace,
                timeout: timeout,
                compression: compression,
                allowsInsecureHTTP: allowsInsecureHTTP,
                customRetryForStatusCodes: customRetryForStatusCodes,
                maximumRetryAfter: maximumRetryAfter,
                additionalHeaders: additionalHeaders,
                wireFormat: wireFormat
            )
        }
    }

    /// Request body compression.
    public enum Compression: Sendable, Hashable {
        /// Plain JSON.
        case none
        /// gzip (`Content-Encoding: gzip`), typically 8–10× smaller for event batches.
        case gzip
    }

    /// What to do with a batch answered with a given status code, overriding the defaults.
    public enum StatusCodeRule: Sendable, Hashable {
        /// Keep the batch and try again later (`.retry`).
        case retry
        /// Drop the batch and report it as rejected (`.rejected`).
        case drop
    }
}
