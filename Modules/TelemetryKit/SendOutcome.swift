/// What became of an event given to `TelemetryClient.send(_:)`, known when `send` returns.
///
/// Most callers ignore it (the result is discardable). It matters where an event must not
/// be lost silently, e.g. a purchase: only `.cached` means the event survives a crash.
///
/// ```swift
/// switch await client.send(EventInput("Purchase.completed", parameters: ["sku": sku])) {
/// case .cached: break
/// case .heldInMemory(let destinations): logger.log(.warning, "not durable yet for \(destinations)")
/// default: break
/// }
/// ```
public enum SendOutcome: Sendable, Hashable {
    /// In every destination's cache: durable, and delivered from there.
    case cached
    /// The cache of these destinations failed (the others have the event cached): the event
    /// waits in their in-memory overflow and is cached when the cache works again.
    ///
    /// Not durable yet: it is lost if the process ends first, or if the overflow reaches
    /// `DeliveryPolicy.overflowLimit` while it is among the oldest there (counted in
    /// `DestinationStats.overflowDropped`). Ids in the client's destination order.
    case heldInMemory(destinations: [String])
    /// A processor (`ProcessorError.eventFiltered`) or an after-processors transformation
    /// dropped the event on purpose.
    case filtered
    /// A processor threw another error: the event was dropped (logged, counted in
    /// `TelemetryStats.failed`).
    case processingFailed
    /// Analytics are disabled (`TelemetryClient.setAnalyticsDisabled(_:)`): dropped.
    case droppedByOptOut
    /// Sent before `start()` and dropped because the pre-start buffer was full (counted in
    /// `TelemetryStats.droppedBeforeStart`).
    case droppedBeforeStart
    /// Sent after `shutdown()` (or the client was released first): dropped.
    case droppedAfterShutdown
    /// The finished event is one the ingest would refuse (a blank name, a blank or over-long
    /// parameter key, more bytes than one event may have): it never entered a queue, so it
    /// cannot cost the events sent in the same batch (counted in `TelemetryStats.refused`).
    case refused(EventRefusal)
}

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
