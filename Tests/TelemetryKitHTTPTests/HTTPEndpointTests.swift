import TelemetryKit
import TelemetryKitHTTP
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct HTTPEndpointTests {
    private func endpoint(
        _ base: String,
        namespace: String = "my-ns",
        allowsInsecureHTTP: Bool = false
    ) throws
        -> String
    {
        let configuration = HTTPEventTransmitter.Configuration(
            apiBaseURL: base,
            namespace: namespace,
            allowsInsecureHTTP: allowsInsecureHTTP
        )
        return try HTTPEventTransmitter(configuration: configuration).endpoint.absoluteString
    }

    @Test(arguments: [
        ("https://nom.telemetrydeck.com", "https://nom.telemetrydeck.com/v2/namespace/my-ns/"),
        ("https://nom.telemetrydeck.com/", "https://nom.telemetrydeck.com/v2/namespace/my-ns/"),
        ("https://example.com/ingest", "https://example.com/ingest/v2/namespace/my-ns/"),
        ("https://example.com/ingest/", "https://example.com/ingest/v2/namespace/my-ns/"),
        ("https://example.com/a/b//", "https://example.com/a/b/v2/namespace/my-ns/"),
        ("https://example.com:8443/base", "https://example.com:8443/base/v2/namespace/my-ns/"),
        ("  https://example.com  ", "https://example.com/v2/namespace/my-ns/"),
        ("HTTPS://example.com", "https://example.com/v2/namespace/my-ns/"),
    ])
    func composesTheIngestURL(base: String, expected: String) throws {
        #expect(try endpoint(base) == expected)
    }

    @Test(arguments: [
        ("nom.telemetrydeck.com", "https://nom.telemetrydeck.com/v2/namespace/my-ns/"),
        ("example.com/proxy/", "https://example.com/proxy/v2/namespace/my-ns/"),
        ("localhost:8080", "https://localhost:8080/v2/namespace/my-ns/"),
    ])
    func addsHTTPSWhenTheSchemeIsMissing(base: String, expected: String) throws {
        #expect(try endpoint(base) == expected)
    }

    @Test(arguments: [
        ("https://nom.telemetrydeck.com", "https://nom.telemetrydeck.com/v2/namespace/ns/"),
        ("https://example.com/proxy/", "https://example.com/proxy/v2/namespace/ns/"),
        ("example.com", "https://example.com/v2/namespace/ns/"),
    ])
    func acceptsAURLBase(base: String, expected: String) throws {
        let url = try #require(URL(string: base))
        let transmitter = try HTTPEventTransmitter(configuration: .init(apiBaseURL: url, namespace: "ns"))
        #expect(transmitter.endpoint.absoluteString == expected)
    }

    @Test func percentEncodesTheNamespaceIntoOneSegment() throws {
        #expect(
            try endpoint("https://example.com", namespace: "a b/c?d")
                == "https://example.com/v2/namespace/a%20b%2Fc%3Fd/"
        )
    }

    @Test(arguments: ["http://127.0.0.1:8080", "http://localhost", "http://[::1]:9000/x", "http://127.1.2.3"])
    func allowsPlainHTTPForLoopback(base: String) throws {
        #expect(try endpoint(base).hasPrefix("http://"))
    }

    @Test(arguments: [
        "http://example.com", "http://10.0.0.1:8080", "http://127.example.com", "http://localhost.evil.com",
    ])
    func refusesPlainHTTPForOtherHosts(base: String) throws {
        let host = base.dropFirst("http://".count).split(separator: ":").first.map(String.init) ?? ""
        #expect(throws: HTTPEndpointError.insecureHTTP(host: host)) {
            try endpoint(base)
        }
    }

    @Test func anInternationalHostIsSentPunycodedAndNamedAsWrittenWhenRefused() throws {
        #expect(try endpoint("https://bücher.example") == "https://xn--bcher-kva.example/v2/namespace/my-ns/")
        #expect(throws: HTTPEndpointError.insecureHTTP(host: "bücher.example")) {
            try endpoint("http://bücher.example/ingest")
        }
    }

    @Test func allowsPlainHTTPWhenOptedIn() throws {
        #expect(
            try endpoint("http://example.com", allowsInsecureHTTP: true) == "http://example.com/v2/namespace/my-ns/"
        )
    }

    @Test func insecureErrorSaysHowToOptIn() {
        let message = HTTPEndpointError.insecureHTTP(host: "example.com").description
        #expect(message.contains("example.com"))
        #expect(message.contains("allowsInsecureHTTP"))
    }

    @Test(arguments: [
        ("", HTTPEndpointError.emptyBaseURL),
        ("   ", .emptyBaseURL),
        ("ftp://example.com", .unsupportedScheme("ftp")),
        ("file:///tmp/x", .unsupportedScheme("file")),
    ])
    func rejectsUnusableBaseURLs(base: String, expected: HTTPEndpointError) {
        #expect(throws: expected) {
            try endpoint(base)
        }
    }

    @Test(arguments: [
        "https://", "https:///path", "://example.com", "/just/a/path", "https://exa mple.com",
        "https://example.com/?q=1", "https://example.com/#top", "https://example.com:99999", "https://[::1",
    ])
    func rejectsMalformedBaseURLs(base: String) {
        #expect {
            try endpoint(base)
        } throws: { error in
            guard case .malformedBaseURL(let url, let reason)? = error as? HTTPEndpointError else { return false }
            return url == base && !reason.isEmpty
        }
    }

    @Test(arguments: ["", "   "])
    func rejectsBlankNamespaces(namespace: String) {
        #expect(throws: HTTPEndpointError.invalidNamespace(namespace)) {
            try endpoint("https://example.com", namespace: namespace)
        }
    }
}
