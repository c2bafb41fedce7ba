import Foundation
import TelemetryKit
import TelemetryKitSupport

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The default ``HTTPConnection``: `URLSession` (FoundationNetworking on Linux).
///
/// Uses an ephemeral session (no cookies, no cache, no stored credentials) that never follows
/// redirects, so a 3xx answer reaches the status rules instead of silently turning the POST
/// into a GET elsewhere.
///
/// ## Connections on Linux
/// Apple's `URLSession` keeps connections alive between requests. FoundationNetworking
/// (Linux, Windows, Android) does not reuse one here: every request says `Connection: close`.
/// When a server closes a kept-alive connection just as the next request goes out on it (its
/// keep-alive timeout racing the client), libcurl sends the request again on a new connection,
/// but FoundationNetworking cannot rewind a `Data` body, so the retry carries
/// `Content-Length` without a body and hangs until the request timeout (30 s by default)
/// before the batch is retried. A new connection per request costs a TCP (and TLS) handshake
/// per batch — small next to a batch every few seconds — and never stalls. Where connection
/// reuse matters (draining a large backlog over a long round trip), use
/// `AsyncHTTPClientConnection` from `TelemetryKitAsyncHTTPClient` (trait `AsyncHTTPClient`),
/// which keeps a pool and sees a server's close as it happens.
///
/// ## Made on the first request
/// The session is created when the first request goes out, not in `init`: the transmitter is
/// built inside `Telemetry.initialize`, during an app's launch, and a first `URLSession` in a
/// process is slow there (on Linux FoundationNetworking starts libcurl and its TLS library),
/// a large part of `initialize` in a new process. The first batch is sent seconds later, off the launch path.
public final class URLSessionHTTPConnection: HTTPConnection {
    private let madeSession = Locked<URLSession?>(nil)

    /// Creates a connection; its own ephemeral `URLSession` is made on the first request.
    public init() {}

    deinit {
        madeSession.current?.finishTasksAndInvalidate()
    }

    /// Whether the session exists yet, i.e. whether a request was sent (tests).
    var hasMadeSession: Bool { madeSession.current != nil }

    /// The session, made on first use.
    private var session: URLSession {
        madeSession.withLock { made in
            if let made { return made }
            let configuration = URLSessionConfiguration.ephemeral
            configuration.httpCookieAcceptPolicy = .never
            configuration.httpShouldSetCookies = false
            configuration.urlCache = nil
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            let session = URLSession(
                configuration: configuration,
                delegate: RedirectRefusingDelegate(),
                delegateQueue: nil
            )
            made = session
            return session
        }
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        #if canImport(FoundationNetworking)
        // FoundationNetworking truncates the interval to whole seconds, and 0 times out at
        // once: round sub-second timeouts up.
        urlRequest.timeoutInterval = max(1, request.timeout.rounded(.up))
        #else
        urlRequest.timeoutInterval = request.timeout
        #endif
        urlRequest.cachePolicy = .reloadIgnoringLocalCacheData
        for header in request.headers {
            urlRequest.addValue(header.value, forHTTPHeaderField: header.name)
        }
        urlRequest.httpBody = request.body
        #if canImport(FoundationNetworking)
        // No reuse, so no stalled re-send of a body FoundationNetworking cannot rewind (see
        // "Connections on Linux" above).
        urlRequest.setValue("close", forHTTPHeaderField: "Connection")
        #endif

        let box = TaskBox()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<HTTPResponse, any Error>) in
                let task = self.session.dataTask(with: urlRequest) { data, response, error in
                    if let error {
                        continuation.resume(throwing: error)
                        return
                    }
                    guard let http = response as? HTTPURLResponse else {
                        continuation.resume(throwing: HTTPConnectionError("The response is not an HTTP response."))
                        return
                    }
                    var headers = [String: String]()
                    for (name, value) in http.allHeaderFields {
                        if let name = name as? String, let value = value as? String {
                            headers[name] = value
                        }
                    }
                    continuation.resume(
                        returning: HTTPResponse(statusCode: http.statusCode, headers: headers, body: data ?? Data())
                    )
                }
                box.start(task)
            }
        } onCancel: {
            box.cancel()
        }
    }
}

/// Holds the running task so that cancellation can reach it, whichever comes first.
private final class TaskBox: Sendable {
    private struct State {
        var task: URLSessionDataTask?
        var cancelled = false
    }

    private let state = Locked(State())

    func start(_ task: URLSessionDataTask) {
        let cancelled = state.withLock { state -> Bool in
            state.task = task
            return state.cancelled
        }
        task.resume()
        if cancelled { task.cancel() }
    }

    func cancel() {
        let task = state.withLock { state -> URLSessionDataTask? in
            state.cancelled = true
            return state.task
        }
        task?.cancel()
    }
}

/// Answers every redirect with "do not follow": the transmitter maps the 3xx itself.
private final class RedirectRefusingDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession,
        task: URLSessionTask,
        willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}
