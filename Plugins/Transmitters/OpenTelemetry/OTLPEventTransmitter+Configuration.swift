#if OpenTelemetry
import TelemetryKit
public import TelemetryKitHTTP

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension OTLPEventTransmitter {
    /// Where ``OTLPEventTransmitter`` sends, in which form, and the resource it names.
    ///
    /// ```swift
    /// var configuration = OTLPEventTransmitter.Configuration(
    ///     endpoint: URL(string: "http://otel-collector:4318")!, serviceName: "checkout")
    /// configuration.serviceVersion = "1.4.0"
    /// configuration.compression = .gzip
    /// configuration.headers = ["Authorization": "Bearer \(token)"]
    /// ```
    public struct Configuration: Sendable, Hashable {
        /// The OTLP/HTTP base URL (a collector listens on port 4318); batches go to
        /// `{endpoint}/v1/logs`, a path in the endpoint kept.
        public var endpoint: URL
        /// `service.name`: the logical name of the service, the same on every instance.
        public var serviceName: String
        /// `service.version`, left out when nil.
        public var serviceVersion: String?
        /// `service.instance.id`: one per process by default (a random UUID), as the semantic
        /// conventions recommend, so instances of a fleet stay apart.
        public var serviceInstanceID: String
        /// `host.name`; default: this machine's host name.
        public var hostName: String
        /// Further resource attributes (`deployment.environment.name`, `cloud.region`, …); one
        /// with the key of a built-in attribute replaces it.
        public var resourceAttributes: [String: String]
        /// The body's form. Default `.protobuf`, OTLP's default and about half the size.
        public var encoding: OTLPLogsEncoder.Encoding
        /// Request body compression (`Content-Encoding: gzip`). Default `.none`.
        public var compression: HTTPEventTransmitter.Compression
        /// The longest one request may take, in seconds. Default 10 (OTLP's default).
        public var timeout: TimeInterval
        /// Header fields sent with every request (a vendor's API key, `Authorization`).
        public var headers: [String: String]
        /// The longest `Retry-After` honoured, in seconds. Default 3600.
        public var maximumRetryAfter: TimeInterval
        /// Per-status-code overrides of the OTLP status rules (e.g. `[500: .retry]` for a
        /// receiver that answers overload with 500).
        public var customRetryForStatusCodes: [Int: HTTPEventTransmitter.StatusCodeRule]

        /// Creates a configuration.
        public init(
            endpoint: URL,
            serviceName: String,
            serviceVersion: String? = nil,
            serviceInstanceID: String = UUID().uuidString.lowercased(),
            hostName: String = OTLPEventTransmitter.Configuration.localHostName,
            resourceAttributes: [String: String] = [:],
            encoding: OTLPLogsEncoder.Encoding = .protobuf,
            compression: HTTPEventTransmitter.Compression = .none,
            timeout: TimeInterval = 10,
            headers: [String: String] = [:],
            maximumRetryAfter: TimeInterval = 3600,
            customRetryForStatusCodes: [Int: HTTPEventTransmitter.StatusCodeRule] = [:]
        ) {
            self.endpoint = endpoint
            self.serviceName = serviceName
            self.serviceVersion = serviceVersion
            self.serviceInstanceID = serviceInstanceID
            self.hostName = hostName
            self.resourceAttributes = resourceAttributes
            self.encoding = encoding
            self.compression = compression
            self.timeout = timeout
            self.headers = headers
            self.maximumRetryAfter = maximumRetryAfter
            self.customRetryForStatusCodes = customRetryForStatusCodes
        }

        /// The resource attributes, in order: the semantic conventions' service, host, OS and
        /// SDK attributes, then ``resourceAttributes`` by key (replacing built-ins they name).
        public var resource: [OTLPLogsEncoder.ResourceAttribute] {
            var attributes: [OTLPLogsEncoder.ResourceAttribute] = [.init("service.name", serviceName)]
            if let serviceVersion { attributes.append(.init("service.version", serviceVersion)) }
            attributes += [
                .init("service.instance.id", serviceInstanceID),
                .init("host.name", hostName),
                .init("os.type", Self.osType),
                .init("telemetry.sdk.name", SDKInfo.name),
                .init("telemetry.sdk.version", SDKInfo.version),
                .init("telemetry.sdk.language", "swift"),
            ]
            for (key, value) in resourceAttributes.sorted(by: { $0.key < $1.key }) {
                if let index = attributes.firstIndex(where: { $0.key == key }) {
                    attributes[index].value = value
                } else {
                    attributes.append(.init(key, value))
                }
            }
            return attributes
        }

        /// This machine's name as `gethostname` gives it: no DNS lookup (which
        /// `ProcessInfo.hostName` may make), so building a configuration never waits.
        public static var localHostName: String {
            var name = [CChar](repeating: 0, count: 256)
            guard gethostname(&name, name.count - 1) == 0 else { return "unknown" }
            let bytes = name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
            return bytes.isEmpty ? "unknown" : String(decoding: bytes, as: UTF8.self)
        }

        /// `os.type` as the semantic conventions spell it.
        static var osType: String {
            #if os(Linux)
            return "linux"
            #elseif os(macOS) || os(iOS) || os(tvOS) || os(watchOS) || os(visionOS)
            return "darwin"
            #elseif os(Windows)
            return "windows"
            #elseif os(FreeBSD)
            return "freebsd"
            #elseif os(OpenBSD)
            return "openbsd"
            #elseif os(Android)
            return "linux"
            #else
            return "unknown"
            #endif
        }
    }
}

/// Why an OTLP endpoint or configuration was refused.
public enum OTLPConfigurationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The scheme is neither `http` nor `https`.
    case unsupportedScheme(String)
    /// The endpoint has no host, or has a query or fragment.
    case malformedEndpoint(String, reason: String)
    /// The service name is empty or blank: every record would belong to no service.
    case blankServiceName

    public var description: String {
        switch self {
        case .unsupportedScheme(let scheme):
            return "The OTLP endpoint scheme '\(scheme)' is not supported; use http or https."
        case .malformedEndpoint(let endpoint, let reason):
            return "The OTLP endpoint '\(endpoint)' is malformed: \(reason)."
        case .blankServiceName:
            return "The OTLP service name is empty or blank."
        }
    }
}
#endif
