import TelemetryKit
import TelemetryKitHTTP
import TelemetryKitSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// An `HTTPConnection` that sends nothing: it records every request and answers from a script.
///
/// The transmitter's own behaviour — the request it builds, how it reads a status, a
/// `Retry-After` header or a failed exchange — needs no network, so these tests run without
/// the `Tools` trait. Scripted replies are used in order; then the rule set with
/// ``respond(with:)`` answers, and without one every request gets 200.
///
/// ```swift
/// let connection = StubHTTPConnection([.status(503, headers: ["Retry-After": "7"]), .status(200)])
/// ```
///
/// It lives in this test target, not in TelemetryKitTesting: that module serves the core's
/// users and must not depend on a plugin.
final class StubHTTPConnection: HTTPConnection {
    /// One scripted answer: a response, or an error as a failed exchange throws it.
    enum Reply: Sendable {
        case response(HTTPResponse)
        case failure(HTTPConnectionError)

        /// A response with `code`, header fields and a UTF-8 body.
        static func status(_ code: Int, headers: [String: String] = [:], body: String = "") -> Reply {
            .response(HTTPResponse(statusCode: code, headers: headers, body: Data(body.utf8)))
        }
    }

    private struct State {
        var requests: [HTTPRequest] = []
        var script: [Reply]
        var rule: (@Sendable (HTTPRequest) -> Reply)?
    }

    private let state: Locked<State>

    /// Creates a connection that answers the first requests with `script`, in order.
    init(_ script: [Reply] = []) {
        state = Locked(State(script: script))
    }

    /// Answers every request that the script does not with `rule(request)`.
    func respond(with rule: @escaping @Sendable (HTTPRequest) -> Reply) {
        state.withLock { $0.rule = rule }
    }

    /// Every request sent, in order.
    var requests: [HTTPRequest] { state.withLock { $0.requests } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let reply = state.withLock { state -> Reply in
            state.requests.append(request)
            if !state.script.isEmpty { return state.script.removeFirst() }
            return state.rule?(request) ?? .status(200)
        }
        switch reply {
        case .response(let response): return response
        case .failure(let error): throw error
        }
    }
}
