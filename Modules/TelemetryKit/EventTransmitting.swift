/// Sends one batch of events and says what happened.
///
/// A transmitter maps one request to one ``TransmissionOutcome``. It keeps no queue and
/// does not retry: batching, retries, backoff and splitting belong to the dispatcher.
///
/// ## Implementation requirements
/// - Never throw and never crash on network or server errors: map them to an outcome.
/// - `.delivered` only when the receiver accepted the whole batch.
/// - `.payloadTooLarge` when the receiver refused the batch for its size; the dispatcher
///   then splits it.
/// - Do not log a `.rejected` outcome: the dispatcher logs each rejection once, with the
///   destination and the count; put what only the transmitter knows (status code, the
///   receiver's message) into the ``RejectionReason``.
public protocol EventTransmitting: Sendable {
    func transmit(_ batch: [Event]) async -> TransmissionOutcome
}

/// What became of a transmitted batch.
public enum TransmissionOutcome: Sendable, Equatable {
    /// Accepted: remove the batch from the cache.
    case delivered
    /// Refused for good: remove the batch, count it as rejected and report the reason.
    case rejected(RejectionReason)
    /// Refused for its size: split the batch and send the halves.
    case payloadTooLarge
    /// Not delivered this time: keep the batch and back off (at least `after` seconds, if given).
    case retry(after: Double?)

    /// `.rejected` with a message (and no status code).
    public static func rejected(_ message: String) -> TransmissionOutcome {
        .rejected(RejectionReason(message))
    }
}

/// Why a batch was rejected.
public struct RejectionReason: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The HTTP status code, when the rejection came from an HTTP response.
    public var statusCode: Int?
    public var message: String

    public init(_ message: String, statusCode: Int? = nil) {
        self.message = message
        self.statusCode = statusCode
    }

    public init(stringLiteral value: String) {
        self.init(value)
    }

    public var description: String {
        if let statusCode { return "HTTP \(statusCode): \(message)" }
        return message
    }
}
