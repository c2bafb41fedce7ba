#if Tools
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// How the collector answers one ingest request: the unit of its fault-injection script.
///
/// ```swift
/// collector.script([.status(503, retryAfter: "1"), .closeMidResponse, .accept.delayed(by: 2)])
/// ```
public struct Fault: Sendable, Hashable, CustomStringConvertible {
    /// What the collector does.
    public enum Action: Sendable, Hashable {
        /// Record the events and answer 200.
        case accept
        /// Answer with this status, these header fields and this body (the standard reason
        /// phrase when nil) without recording the events.
        case status(Int, headers: [String: String], body: String?)
        /// Record the events, then send a truncated response and close the connection:
        /// the client never learns that its batch arrived.
        case closeMidResponse
        /// Record the events and answer 200 on a connection kept alive (no `Connection:
        /// close`), then close that connection once it has been idle for `idle` seconds, as
        /// a server's keep-alive timeout does: the client learns of it only when it tries to
        /// reuse the connection for its next request.
        case closeWhenIdle(after: TimeInterval)
        /// Record the events and answer 200 on a connection kept alive; then, when the
        /// client sends its next request on that connection, close it without reading or
        /// answering that request. This is the race a server's keep-alive timeout loses to a
        /// client reusing the connection at the same moment: the client cannot see the close
        /// coming and must send the request again on a new connection, body and all.
        case closeWhenReused
    }

    public var action: Action
    /// Seconds to wait before acting.
    public var delay: TimeInterval

    public init(_ action: Action, delay: TimeInterval = 0) {
        self.action = action
        self.delay = max(0, delay)
    }

    /// Record the events and answer 200.
    public static let accept = Fault(.accept)
    /// Record the events and lose the answer (truncated response, connection closed).
    public static let closeMidResponse = Fault(.closeMidResponse)

    /// Record the events, answer 200 and close the kept-alive connection after `seconds`
    /// without a request (default 0.05 s): a keep-alive timeout far shorter than a client
    /// expects, so the client's next request finds its pooled connection closed.
    public static func closeWhenIdle(after seconds: TimeInterval = 0.05) -> Fault {
        Fault(.closeWhenIdle(after: max(0, seconds)))
    }

    /// Record the events, answer 200, and close the kept-alive connection, unanswered, as
    /// soon as the client reuses it.
    public static let closeWhenReused = Fault(.closeWhenReused)

    /// Answer `code` (with `Retry-After` and other header fields when given) without
    /// recording the events.
    public static func status(
        _ code: Int,
        retryAfter: String? = nil,
        headers: [String: String] = [:],
        body: String? = nil
    ) -> Fault {
        var fields = headers
        if let retryAfter { fields["Retry-After"] = retryAfter }
        return Fault(.status(code, headers: fields, body: body))
    }

    /// The same fault after waiting `seconds`.
    public func delayed(by seconds: TimeInterval) -> Fault {
        Fault(action, delay: seconds)
    }

    public var description: String {
        let base: String
        switch action {
        case .accept: base = "accept"
        case .status(let code, let headers, _):
            base = headers["Retry-After"].map { "status \(code) (Retry-After: \($0))" } ?? "status \(code)"
        case .closeMidResponse: base = "close mid-response"
        case .closeWhenIdle(let idle): base = "accept, then close when idle for \(idle) s"
        case .closeWhenReused: base = "accept, then close when reused"
        }
        return delay > 0 ? "\(base) after \(delay) s" : base
    }
}

/// Faults drawn at random, reproducibly, for requests that no script entry answers.
///
/// ```swift
/// RandomFaults(seed: 42, [
///     (.status(500), 0.20),
///     (.status(503, retryAfter: "1"), 0.05),
///     (.closeMidResponse, 0.05),
/// ])   // the remaining 70 % are accepted
/// ```
public struct RandomFaults: Sendable {
    public let seed: UInt64
    public let rates: [(fault: Fault, probability: Double)]

    /// Creates a fault mix; probabilities are clamped to 0…1 and their sum should not
    /// exceed 1 (faults past a cumulative 1 never fire).
    public init(seed: UInt64, _ rates: [(fault: Fault, probability: Double)]) {
        self.seed = seed
        self.rates = rates.map { ($0.fault, min(max($0.probability, 0), 1)) }
    }

    /// The fault for a draw `unit` in 0..<1, or nil to accept.
    func fault(forUnit unit: Double) -> Fault? {
        var cumulative = 0.0
        for rate in rates {
            cumulative += rate.probability
            if unit < cumulative { return rate.fault }
        }
        return nil
    }
}
#endif
