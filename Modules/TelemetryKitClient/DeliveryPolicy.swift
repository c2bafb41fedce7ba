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

    public init(
        flushInterval: TimeInterval = 10,
        maxBatchCount: Int = 100,
        maxBatchBytes: Int = 512 * 1024,
        sendThreshold: Int? = nil,
        backoff: BackoffPolicy = BackoffPolicy(),
        maxEventAge: TimeInterval? = nil,
        overflowLimit: Int = 5000
    ) {
        self.flushInterval = max(0.001, flushInterval)
        self.maxBatchCount = max(1, maxBatchCount)
        self.maxBatchBytes = max(1, maxBatchBytes)
        self.sendThreshold = sendThreshold.map { max(1, $0) }
        self.backoff = backoff
        self.maxEventAge = maxEventAge
        self.overflowLimit = max(1, overflowLimit)
    }

    /// The defaults: every 10 s, 100 events or 512 KiB per request, backoff 10 s ×2 up to 300 s,
    /// up to 5000 events in memory while the cache fails.
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
