/// Why an event was refused before it was queued: the typed error of
/// ``SendOutcome/refused(_:)``.
///
/// ```swift
/// if case .refused(let refusal) = await client.send(EventInput(name)) {
///     logger.log(.error, "\(refusal)")
/// }
/// ```
public struct EventRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong with the event.
    public enum Reason: Sendable, Hashable {
        /// The name is empty or only white space.
        case blankName
        /// A parameter key is empty or only white space.
        case blankParameterKey
        /// A parameter key is longer than `limit` bytes (UTF-8).
        case parameterKeyTooLong(key: String, limit: Int)
        /// The event encodes to about `bytes` bytes, more than the `limit` one event may have.
        case tooLarge(bytes: Int, limit: Int)
    }

    /// The event's name (after the processors).
    public var eventName: String
    public var reason: Reason

    public init(eventName: String, reason: Reason) {
        self.eventName = eventName
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .blankName:
            return "an event with a blank name was refused: the ingest rejects it, and with it its whole batch"
        case .blankParameterKey:
            return "event '\(eventName)' was refused: a parameter key is blank"
        case .parameterKeyTooLong(let key, let limit):
            return "event '\(eventName)' was refused: parameter key '\(key.prefix(64))…' is longer than \(limit) bytes"
        case .tooLarge(let bytes, let limit):
            return "event '\(eventName)' was refused: it is about \(bytes) bytes, more than the \(limit) one event "
                + "may have (TelemetryClient.Configuration.maxEventBytes)"
        }
    }
}
