import TelemetryKitSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Builds and checks the ingest URL `{apiBaseURL}/v2/namespace/{namespace}/`.
enum HTTPEndpoint {
    /// The ingest URL for `baseURL` and `namespace`.
    ///
    /// A base without a scheme gets `https://`; a path in the base is kept, with exactly one
    /// slash between it and `v2`. Plain `http://` is accepted only for loopback hosts or
    /// when `allowsInsecureHTTP` is set.
    static func ingestURL(
        baseURL: String,
        namespace: String,
        allowsInsecureHTTP: Bool
    ) throws(HTTPEndpointError) -> URL {
        let trimmed = baseURL.trimmingWhitespace
        guard !trimmed.isEmpty else { throw .emptyBaseURL }
        let trimmedNamespace = namespace.trimmingWhitespace
        guard !trimmedNamespace.isEmpty else { throw .invalidNamespace(namespace) }

        let withScheme: String
        let scheme: String
        if let separator = trimmed.utf8.indices.first(where: { trimmed.utf8[$0...].starts(with: "://".utf8) }) {
            scheme = String(trimmed[..<separator]).lowercased()
            guard !scheme.isEmpty else {
                throw .malformedBaseURL(baseURL, reason: "the scheme is missing before '://'")
            }
            withScheme = trimmed
        } else if trimmed.hasPrefix("/") {
            throw .malformedBaseURL(baseURL, reason: "it has no host")
        } else {
            scheme = "https"
            withScheme = "https://" + trimmed
        }
        guard scheme == "https" || scheme == "http" else { throw .unsupportedScheme(scheme) }
        guard !withScheme.contains(where: { $0.isWhitespace }) else {
            throw .malformedBaseURL(baseURL, reason: "it contains whitespace")
        }
        guard let components = URLComponents(string: withScheme) else {
            throw .malformedBaseURL(baseURL, reason: "it is not a valid URL")
        }
        guard let host = components.host, !host.isEmpty else {
            throw .malformedBaseURL(baseURL, reason: "it has no host")
        }
        guard components.query == nil, components.fragment == nil else {
            throw .malformedBaseURL(baseURL, reason: "it must not have a query or a fragment")
        }
        if let port = components.port, !(1...65_535).contains(port) {
            throw .malformedBaseURL(baseURL, reason: "port \(port) is out of range")
        }
        if scheme == "http" && !allowsInsecureHTTP && !isLoopback(host: host) {
            throw .insecureHTTP(host: host)
        }

        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        path += "/v2/namespace/" + percentEncodedPathSegment(trimmedNamespace) + "/"

        var result = components
        result.scheme = scheme
        result.percentEncodedPath = path
        guard let url = result.url else {
            throw .malformedBaseURL(baseURL, reason: "it is not a valid URL")
        }
        return url
    }

    /// Whether `host` names this machine: `localhost`, `127.0.0.0/8` or `::1`.
    static func isLoopback(host: String) -> Bool {
        var name = host.lowercased()
        if name.hasPrefix("[") && name.hasSuffix("]") {
            name = String(name.dropFirst().dropLast())
        }
        if name.hasSuffix(".") { name.removeLast() }
        if name == "localhost" || name == "::1" || name == "0:0:0:0:0:0:0:1" { return true }
        let octets = name.split(separator: ".", omittingEmptySubsequences: false)
        guard octets.count == 4, octets[0] == "127" else { return false }
        return octets.allSatisfy { octet in
            !octet.isEmpty && octet.count <= 3 && octet.allSatisfy(\.isASCII) && (UInt8(octet) != nil)
        }
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters, so a namespace can
    /// never add path segments or a query.
    private static func percentEncodedPathSegment(_ segment: String) -> String {
        let hex: [UInt8] = Array("0123456789ABCDEF".utf8)
        var bytes = [UInt8]()
        bytes.reserveCapacity(segment.utf8.count)
        for byte in segment.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                bytes.append(byte)
            default:
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hex[Int(byte >> 4)])
                bytes.append(hex[Int(byte & 0x0f)])
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
