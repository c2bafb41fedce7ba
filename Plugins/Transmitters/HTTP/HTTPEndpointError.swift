/// Why an ingest endpoint could not be built from a configuration.
public enum HTTPEndpointError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The base URL is empty or blank.
    case emptyBaseURL
    /// The base URL cannot be parsed or has parts an endpoint must not have.
    case malformedBaseURL(String, reason: String)
    /// The scheme is neither `https` nor `http`.
    case unsupportedScheme(String)
    /// Plain `http://` to a host that is not loopback, without the explicit opt-in.
    case insecureHTTP(host: String)
    /// The namespace is empty or blank.
    case invalidNamespace(String)

    public var description: String {
        switch self {
        case .emptyBaseURL:
            return "The API base URL is empty."
        case .malformedBaseURL(let url, let reason):
            return "The API base URL '\(url)' is malformed: \(reason)."
        case .unsupportedScheme(let scheme):
            return "The API base URL scheme '\(scheme)' is not supported; use https (or http for loopback)."
        case .insecureHTTP(let host):
            return "Refusing plain http:// to '\(host)': events would travel unencrypted. Use https://, "
                + "or, if this is intended, set `Telemetry.Config.allowInsecureHTTP` (the facade) or "
                + "`HTTPEventTransmitter.Configuration.allowsInsecureHTTP` (a transmitter built by hand)."
        case .invalidNamespace(let namespace):
            return "The namespace '\(namespace)' is empty or blank."
        }
    }
}
