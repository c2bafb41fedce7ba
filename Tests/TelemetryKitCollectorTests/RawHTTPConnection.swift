#if Tools
import Foundation
import TelemetryKitTesting

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP/1.1 client on one TCP connection that it keeps alive, to see what the collector
/// does with a connection between requests (the URLSession connection on Linux closes after
/// every request).
///
/// Its socket calls block, so the async ones run on a thread of their own: blocking a thread of
/// Swift's cooperative pool would hold up the tests that run in parallel on it. The blocking
/// ones are for a test that holds the pool's threads on purpose.
final class RawHTTPConnection: Sendable {
    private let descriptor: Int32

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Connects to 127.0.0.1:`port`; reads give up after 10 s, so a bug cannot hang a test.
    init(port: Int) throws {
        #if os(Linux)
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw Failure(description: "socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(descriptor)
            throw Failure(description: "connect() failed")
        }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit {
        close(descriptor)
    }

    /// Sends a POST of `body` as JSON to `path`, without `Connection: close`.
    func post(_ body: [UInt8], path: String = "/v2/namespace/ns/") async throws {
        try await onThreadOfItsOwn { try self.blockingSend("POST", body, path: path) }
    }

    /// The status of the next response (its body read and dropped), or nil when the server
    /// closed the connection before sending a byte of it.
    func readStatus() async throws -> Int? {
        try await onThreadOfItsOwn { try self.blockingReadStatus() }
    }

    /// Sends a `method` request with `body` as JSON to `path`, on the calling thread.
    func blockingSend(_ method: String, _ body: [UInt8], path: String) throws {
        let head =
            "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.count)\r\n\r\n"
        let bytes = Array(head.utf8) + body
        var sent = 0
        while sent < bytes.count {
            let result = bytes[sent...].withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
            guard result > 0 else { throw Failure(description: "send() failed") }
            sent += result
        }
    }

    /// What ``readStatus()`` returns, read on the calling thread.
    func blockingReadStatus() throws -> Int? {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        let separator = Array("\r\n\r\n".utf8)
        while true {
            if let end = Self.range(of: separator, in: received)?.upperBound {
                let head = String(decoding: received[..<end], as: UTF8.self)
                let lines = head.split(separator: "\r\n")
                guard let statusLine = lines.first, let status = Int(statusLine.split(separator: " ")[1]) else {
                    throw Failure(description: "not an HTTP response: \(head)")
                }
                let length =
                    lines.first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].filter { $0 != " " }) } ?? 0
                while received.count < end + length {
                    let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                    guard count > 0 else { throw Failure(description: "the body ended early") }
                    received += buffer[0..<count]
                }
                return status
            }
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 && received.isEmpty { return nil }
            guard count > 0 else { throw Failure(description: "recv() failed or timed out") }
            received += buffer[0..<count]
        }
    }

    private static func range(of needle: [UInt8], in haystack: [UInt8]) -> Range<Int>? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count)
        where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start..<(start + needle.count)
        }
        return nil
    }
}
#endif
