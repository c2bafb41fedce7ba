package import TelemetryKit

#if canImport(FoundationEssentials)
package import FoundationEssentials
#else
package import Foundation
#endif

extension HTTPRequest {
    /// A POST of `body` to `url`, gzipped (sent with `gzipHeaders`) when `compression` asks
    /// for it. A body that fails to compress is sent plain (with `headers`) and a warning
    /// names what went uncompressed (`what`: "the batch", "the export"): losing compression
    /// must never lose the events. Shared by every transmitter built on this plugin.
    package static func post(
        _ body: [UInt8],
        to url: URL,
        headers: [HTTPHeader],
        gzipHeaders: [HTTPHeader],
        compression: HTTPEventTransmitter.Compression,
        timeout: TimeInterval,
        logger: any Logging,
        what: String
    ) -> HTTPRequest {
        if compression == .gzip {
            do {
                let compressed = try Gzip.compress(body)
                return HTTPRequest(url: url, headers: gzipHeaders, body: Data(compressed), timeout: timeout)
            } catch {
                logger.log(.warning, "\(error); sending \(what) uncompressed")
            }
        }
        return HTTPRequest(url: url, headers: headers, body: Data(body), timeout: timeout)
    }
}
