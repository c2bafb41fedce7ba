/// Counters of a client, overall and per destination.
public struct TelemetryStats: Sendable, Hashable {
    /// Events that entered the pipeline.
    public var processed: Int = 0
    /// Events a processor dropped on purpose (`ProcessorError.eventFiltered`) or an
    /// after-processors transformation dropped.
    public var filtered: Int = 0
    /// Events dropped because a processor threw another error (logged).
    public var failed: Int = 0
    /// Finished events refused before they were queued, because the ingest would reject
    /// them (`SendOutcome.refused(_:)`; logged once per event name).
    public var refused: Int = 0
    /// Events dropped from the full pre-start buffer (oldest first).
    public var droppedBeforeStart: Int = 0
    /// Per destination id.
    public var destinations: [String: DestinationStats] = [:]

    public init() {}
}

/// Counters of one destination.
public struct DestinationStats: Sendable, Hashable {
    /// Events appended to this destination's cache.
    public var accepted: Int = 0
    /// Events dropped for this destination by its transformations.
    public var filtered: Int = 0
    /// Events the receiver accepted.
    public var delivered: Int = 0
    /// Events the receiver refused for good.
    public var rejected: Int = 0
    /// Events evicted from the cache (limit or maximum age).
    public var evicted: Int = 0
    /// Event transmissions that failed and stay queued for a retry (counted per attempt).
    public var retried: Int = 0
    /// Events whose append to the cache failed, so that they went to the in-memory overflow
    /// (each counted once, however often it is retried; see ``DeliveryPolicy/overflowLimit``).
    public var cacheFailures: Int = 0
    /// Events dropped, oldest first, because the in-memory overflow was full: lost.
    public var overflowDropped: Int = 0
    /// Events in the cache right now.
    public var queued: Int = 0
    /// Events in the in-memory overflow right now, waiting for the cache to work again.
    public var heldInMemory: Int = 0

    public init() {}
}

/// What one delivery round of a destination achieved: the per-request callback.
public struct DeliveryReport: Sendable, Hashable {
    public var destinationID: String
    /// Events delivered in this round.
    public var successCount: Int
    /// Events rejected or left for a retry in this round.
    public var failureCount: Int
    /// Rejection reasons seen in this round.
    public var rejections: [RejectionReason]
    /// The delay before the next attempt when the round ended in a retry.
    public var retryDelay: Double?

    public init(
        destinationID: String,
        successCount: Int,
        failureCount: Int,
        rejections: [RejectionReason] = [],
        retryDelay: Double? = nil
    ) {
        self.destinationID = destinationID
        self.successCount = successCount
        self.failureCount = failureCount
        self.rejections = rejections
        self.retryDelay = retryDelay
    }
}

/// The result of a flush.
public enum FlushResult: Sendable, Hashable {
    /// Every destination's cache and in-memory overflow are empty.
    case complete
    /// Some events are still queued (a destination asked to retry later) or held in memory
    /// (a cache fails); `remaining` counts both, over all destinations.
    case incomplete(remaining: Int)
    /// A receiver refused `count` events for good during the flush (dropped, counted in
    /// `DestinationStats.rejected`, logged with the reason); `remaining` as in `incomplete`.
    case rejected(count: Int, remaining: Int)
}
