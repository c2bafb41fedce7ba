#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// When and how a destination sends its queued events.
public struct DeliveryPolicy: Sendable, Hashable {
    /// Send queued events this often (seconds). Default 10.
    public var flushInterval: TimeInterval
    /// At most this many events per request. Default 100.
    public var maxBatchCount: Int
    /// At most this many (estimated) bytes per request. Default 512 KiB.
    public var maxBatchBytes: Int
    /// Send as soon as this many events are queued; `nil` sends on the timer only.
    public var sendThreshold: Int?
    /// Retry timing after failures.
    public var backoff: BackoffPolicy
    /// Drop queued events older than this (counted as evicted); `nil` keeps them.
    public var maxEventAge: TimeInterval?
    /// At most this many events wait in memory while the cache fails (at least 1). Default 5000.
    ///
    /// An event whose append to the cache fails is not lost: it waits in a per-destination
    /// in-memory overflow and is cached again before the next append, at each delivery round
    /// and at shutdown. Beyond this bound the oldest are dropped (counted in
    /// ``DestinationStats/overflowDropped``). The bound caps the memory this takes: a held event
    /// costs what its payload does, typically well under a KiB.
    public var overflowLimit: Int
    /// Whether to send over an expensive path (cellular, a personal hotspot). Default
    /// ``NetworkUse/always``: analytics batches are small, and holding them until Wi-Fi
    /// delays them by hours for users who are rarely on one.
    public var onExpensiveNetwork: NetworkUse
    /// Whether to send while the user has Low Data Mode on. Default
    /// ``NetworkUse/whenNeeded``: the user asked apps to save data, so the queue waits until
    /// it nears its limit or the app flushes; events arrive later, but none is evicted.
    public var onConstrainedNetwork: NetworkUse
    /// How many queued events count as "nearing the limit" for ``NetworkUse/whenNeeded``.
    /// Default 5000, half the default queues' capacity, so that the queue is sent well before
    /// it evicts anything.
    public var deferredSendThreshold: Int
    /// The send interval while Low Power Mode is on (seconds), when longer than
    /// ``flushInterval``. Default 60: fewer radio wake-ups, events a minute later.
    public var lowPowerFlushInterval: TimeInterval

    public init(
        flushInterval: TimeInterval = 10,
        maxBatchCount: Int = 100,
        maxBatchBytes: Int = 512 * 1024,
        sendThreshold: Int? = nil,
        backoff: BackoffPolicy = BackoffPolicy(),
        maxEventAge: TimeInterval? = nil,
        overflowLimit: Int = 5000,
        onExpensiveNetwork: NetworkUse = .always,
        onConstrainedNetwork: NetworkUse = .whenNeeded,
        deferredSendThreshold: Int = 5000,
        lowPowerFlushInterval: TimeInterval = 60
    ) {
        self.flushInterval = max(0.001, flushInterval)
        self.maxBatchCount = max(1, maxBatchCount)
        self.maxBatchBytes = max(1, maxBatchBytes)
        self.sendThreshold = sendThreshold.map { max(1, $0) }
        self.backoff = backoff
        self.maxEventAge = maxEventAge
        self.overflowLimit = max(1, overflowLimit)
        self.onExpensiveNetwork = onExpensiveNetwork
        self.onConstrainedNetwork = onConstrainedNetwork
        self.deferredSendThreshold = max(1, deferredSendThreshold)
        self.lowPowerFlushInterval = max(0.001, lowPowerFlushInterval)
    }

    /// Whether a destination sends over a kind of network path (see ``DeliveryConditions``).
    public enum NetworkUse: Sendable, Hashable {
        /// Send as on any other path.
        case always
        /// Send only what must go: when ``DeliveryPolicy/deferredSendThreshold`` events are
        /// queued, or when the app calls `flush()` (also when it goes to the background).
        case whenNeeded
        /// Never send over such a path, not even on `flush()`: the queue waits for another.
        case never
    }

    /// The send interval under `conditions` (longer in Low Power Mode).
    func interval(under conditions: DeliveryConditions) -> TimeInterval {
        conditions.isLowPowerModeEnabled ? max(flushInterval, lowPowerFlushInterval) : flushInterval
    }

    /// What `conditions` allow a round to send: everything, only what must go, or nothing.
    func networkUse(under conditions: DeliveryConditions) -> NetworkUse? {
        guard conditions.isOnline else { return nil }
        let uses = [
            conditions.isExpensive ? onExpensiveNetwork : .always,
            conditions.isConstrained ? onConstrainedNetwork : .always,
        ]
        if uses.contains(.never) { return .never }
        if uses.contains(.whenNeeded) { return .whenNeeded }
        return .always
    }

    /// The defaults: every 10 s (60 s in Low Power Mode), 100 events or 512 KiB per request,
    /// backoff 10 s ×2 up to 300 s, up to 5000 events in memory while the cache fails; sends on
    /// cellular, and in Low Data Mode only when the queue nears 5000 events or the app flushes.
    public static let `default` = DeliveryPolicy()
}

/// Exponential backoff with jitter: `initial × multiplier^(failures−1)`, capped, ± jitter.
public struct BackoffPolicy: Sendable, Hashable {
    /// The first delay (seconds). Default 10.
    public var initial: TimeInterval
    /// Growth per consecutive failure. Default 2.
    public var multiplier: Double
    /// The longest delay (seconds). Default 300.
    public var maximum: TimeInterval
    /// Relative random spread, 0.1 = ±10 %. Default 0.1.
    public var jitter: Double

    public init(initial: TimeInterval = 10, multiplier: Double = 2, maximum: TimeInterval = 300, jitter: Double = 0.1) {
        self.initial = max(0, initial)
        self.multiplier = max(1, multiplier)
        self.maximum = max(self.initial, maximum)
        self.jitter = min(max(0, jitter), 1)
    }

    /// The delay before the next attempt after `consecutiveFailures` failures (≥ 1),
    /// before jitter.
    public func baseDelay(afterFailures consecutiveFailures: Int) -> TimeInterval {
        guard consecutiveFailures > 0 else { return 0 }
        var delay = initial
        for _ in 1..<consecutiveFailures {
            delay *= multiplier
            if delay >= maximum { return maximum }
        }
        return min(delay, maximum)
    }

    /// The delay with jitter applied, using `unit` (a random number in 0..<1).
    public func delay(afterFailures consecutiveFailures: Int, unit: Double = Double.random(in: 0..<1)) -> TimeInterval {
        let base = baseDelay(afterFailures: consecutiveFailures)
        guard jitter > 0 else { return base }
        return max(0, base * (1 + jitter * (unit * 2 - 1)))
    }
}
