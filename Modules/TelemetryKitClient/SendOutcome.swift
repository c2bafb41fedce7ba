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
