#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Delivers one destination's queue: on a timer, on a count threshold and on flush.
///
/// One round peeks the oldest events (≤ `maxBatchCount`, ≤ `maxBatchBytes`), applies the
/// destination's transformations, transmits, and acts on the outcome: delivered and
/// rejected batches leave the cache, too-large batches are halved, and a retry keeps the
/// batch in place (order kept) and backs off. Rounds never overlap, so order is FIFO.
///
/// Each round first moves events held in memory by ``overflow`` (the cache failed) into the
/// cache, so that a working cache gets them back even when no new event arrives.
actor Dispatcher {
    enum RoundEnd: Sendable {
        case empty
        case retry
        case failed
    }

    let destination: Destination
    /// The way into the destination's cache: the client appends through it.
    let overflow: CacheOverflow
    private let transformations: [any EventTransformation]
    private let clock: any TelemetryClock
    private let logger: any Logging
    private let observer: (@Sendable (DeliveryReport) -> Void)?
    private let random: @Sendable () -> Double

    private var stats = DestinationStats()
    /// Accepted events, counted outside the actor (see ``recordAccepted(_:)``).
    private let acceptedCount = Locked(0)
    private var consecutiveFailures = 0
    private(set) var currentBackoff: Double?
    private(set) var nextAttemptAt: Date?
    private(set) var lastSuccessAt: Date?
    private var lastRoundAt: Date
    private var isDelivering = false
    private var roundWaiters: [CheckedContinuation<Void, Never>] = []
    private var timerTask: Task<Void, Never>?
    private var thresholdTask: Task<Void, Never>?

    init(
        destination: Destination,
        transformations: [any EventTransformation],
        clock: any TelemetryClock,
        logger: any Logging,
        observer: (@Sendable (DeliveryReport) -> Void)?,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.destination = destination
        self.overflow = CacheOverflow(
            cache: destination.cache,
            limit: destination.policy.overflowLimit,
            destinationID: destination.id,
            logger: logger
        )
        self.transformations = transformations
        self.clock = clock
        self.logger = logger
        self.observer = observer
        self.random = random
        self.lastRoundAt = clock.now
    }

    // MARK: Lifecycle

    func startTimer() {
        guard timerTask == nil else { return }
        timerTask = Task { [weak self] in
            while !Task.isCancelled {
                guard let self else { return }
                let delay = await self.secondsUntilNextTimedRound()
                do {
                    try await self.clock.sleep(for: delay)
                } catch {
                    return
                }
                await self.timerFired()
            }
        }
    }

    func stopTimer() {
        timerTask?.cancel()
        timerTask = nil
        thresholdTask?.cancel()
        thresholdTask = nil
    }

    private func secondsUntilNextTimedRound() -> Double {
        let now = clock.now
        var wake = lastRoundAt.addingTimeInterval(destination.policy.flushInterval)
        if let nextAttemptAt, nextAttemptAt > wake { wake = nextAttemptAt }
        return max(0, wake.timeIntervalSince(now))
    }

    private func timerFired() async {
        // Retry a failed cache on every tick, even while the transmitter backs off.
        await drainOverflow()
        let now = clock.now
        if let nextAttemptAt, now < nextAttemptAt { return }
        if now < lastRoundAt.addingTimeInterval(destination.policy.flushInterval) && nextAttemptAt == nil { return }
        _ = await deliver(force: false)
    }

    // MARK: Intake

    /// Counts events the client appended to this destination's cache, without an actor hop.
    /// Returns `true` when a send threshold is configured and ``checkThreshold()`` should run.
    nonisolated func recordAccepted(_ count: Int) -> Bool {
        acceptedCount.withLock { $0 += count }
        return destination.policy.sendThreshold != nil
    }

    /// Starts a delivery round when the queue reached the policy's send threshold.
    func checkThreshold() async {
        guard let threshold = destination.policy.sendThreshold, thresholdTask == nil else { return }
        if let nextAttemptAt, clock.now < nextAttemptAt { return }
        let queued = await destination.cache.count()
        guard queued >= threshold else { return }
        thresholdTask = Task { [weak self] in
            guard let self else { return }
            _ = await self.deliver(force: false)
            await self.clearThresholdTask()
        }
    }

    /// Moves events held in memory into the cache (see ``CacheOverflow``) and counts them as
    /// accepted; returns how many moved.
    @discardableResult
    nonisolated func drainOverflow() async -> Int {
        let moved = await overflow.drain()
        if moved > 0 { _ = recordAccepted(moved) }
        return moved
    }

    private func clearThresholdTask() {
        thresholdTask = nil
    }

    // MARK: Stats

    func snapshot() async -> DestinationStats {
        var copy = stats
        copy.accepted = acceptedCount.current
        let held = overflow.counters
        copy.cacheFailures = held.entered
        copy.overflowDropped = held.dropped
        copy.heldInMemory = held.held
        copy.evicted += await destination.cache.evictedCount()
        copy.queued = await destination.cache.count()
        return copy
    }

    /// The delay chosen after the last failure, or nil when not backing off.
    func backoffState() -> (delay: Double?, nextAttempt: Date?, lastSuccess: Date?) {
        (currentBackoff, nextAttemptAt, lastSuccessAt)
    }

    // MARK: Delivery

    /// Runs one delivery round: drains the queue until it is empty or a transmission asks
    /// for a retry. `force` ignores a running backoff (an explicit flush).
    ///
    /// Events held in memory go into the cache first (caching does not wait for a backoff),
    /// and again when the cache is empty, for those held while the round ran. `.empty` says
    /// the cache is empty; some events may still be held in memory.
    func deliver(force: Bool) async -> RoundEnd {
        await acquireRound()
        defer { releaseRound() }
        await drainOverflow()
        if !force, let nextAttemptAt, clock.now < nextAttemptAt { return .retry }
        lastRoundAt = clock.now

        var report = DeliveryReport(destinationID: destination.id, successCount: 0, failureCount: 0)
        var attempted = false
        defer {
            if attempted { observer?(report) }
        }

        while true {
            // Cancelled (the app's background time ran out): stop between batches; what is
            // left stays queued for the next round.
            if Task.isCancelled { return .retry }
            let peeked: [Event]
            do {
                peeked = try await destination.cache.peek(limit: destination.policy.maxBatchCount)
            } catch {
                logger.log(.error, "destination '\(destination.id)': reading the cache failed: \(error)")
                return .failed
            }
            if peeked.isEmpty {
                if overflow.count > 0, await drainOverflow() > 0 { continue }
                return .empty
            }

            let batch = prepare(peeked)
            if !batch.expired.isEmpty || !batch.dropped.isEmpty {
                do {
                    try await destination.cache.remove(ids: batch.expired + batch.dropped)
                } catch {
                    logger.log(.error, "destination '\(destination.id)': removing events failed: \(error)")
                    return .failed
                }
                stats.evicted += batch.expired.count
                stats.filtered += batch.dropped.count
            }
            if batch.events.isEmpty { continue }

            attempted = true
            let end = await transmit(batch.events, ids: batch.ids, report: &report)
            switch end {
            case .empty: continue
            case .retry, .failed: return end
            }
        }
    }

    private struct PreparedBatch {
        var events: [Event] = []
        var ids: [UUID] = []
        var expired: [UUID] = []
        var dropped: [UUID] = []
    }

    /// Applies max age, transformations and the byte limit to the oldest events.
    private func prepare(_ peeked: [Event]) -> PreparedBatch {
        var batch = PreparedBatch()
        let now = clock.now
        var bytes = 0
        for event in peeked {
            if let maxAge = destination.policy.maxEventAge, now.timeIntervalSince(event.receivedAt) > maxAge {
                batch.expired.append(event.id)
                continue
            }
            let size = event.estimatedEncodedSize
            if !batch.events.isEmpty && bytes + size > destination.policy.maxBatchBytes { break }
            bytes += size
            batch.events.append(event)
            batch.ids.append(event.id)
        }
        return batch
    }

    /// Applies this destination's transformations; nil entries were dropped.
    private func transform(_ events: [Event]) async -> [Event?] {
        guard !transformations.isEmpty else { return events }
        var result = [Event?]()
        result.reserveCapacity(events.count)
        for event in events {
            let current = await transformations.run(on: event, destination: destination.id)
            result.append(current)
        }
        return result
    }

    /// Transmits `events` (the cache's copies, with `ids`), halving on `.payloadTooLarge`.
    private func transmit(_ events: [Event], ids: [UUID], report: inout DeliveryReport) async -> RoundEnd {
        let transformed = await transform(events)
        var sendable: [Event] = []
        var sendableIDs: [UUID] = []
        var dropped: [UUID] = []
        for (index, event) in transformed.enumerated() {
            if let event {
                sendable.append(event)
                sendableIDs.append(ids[index])
            } else {
                dropped.append(ids[index])
            }
        }
        if !dropped.isEmpty {
            guard await remove(dropped) else { return .failed }
            stats.filtered += dropped.count
        }
        guard !sendable.isEmpty else { return .empty }
        return await send(sendable, ids: sendableIDs, report: &report)
    }

    private func send(_ events: [Event], ids: [UUID], report: inout DeliveryReport) async -> RoundEnd {
        let outcome = await destination.transmitter.transmit(events)
        if case .retry = outcome, Task.isCancelled {
            // Cut short by the cancellation, not refused by the receiver: the events stay
            // queued, and no backoff or retry is counted against the destination.
            return .retry
        }
        switch outcome {
        case .delivered:
            guard await remove(ids) else { return .failed }
            stats.delivered += events.count
            report.successCount += events.count
            succeeded()
            return .empty
        case .rejected(let reason):
            guard await remove(ids) else { return .failed }
            stats.rejected += events.count
            report.failureCount += events.count
            report.rejections.append(reason)
            logger.log(.warning, "destination '\(destination.id)' rejected \(events.count) event(s): \(reason)")
            succeeded()
            return .empty
        case .payloadTooLarge:
            if events.count == 1 {
                let reason = RejectionReason("a single event is larger than the receiver accepts", statusCode: 413)
                guard await remove(ids) else { return .failed }
                stats.rejected += 1
                report.failureCount += 1
                report.rejections.append(reason)
                logger.log(
                    .warning,
                    "destination '\(destination.id)' rejected an event: \(reason)",
                    eventName: events[0].type
                )
                return .empty
            }
            let middle = events.count / 2
            let first = await send(Array(events[..<middle]), ids: Array(ids[..<middle]), report: &report)
            guard case .empty = first else { return first }
            return await send(Array(events[middle...]), ids: Array(ids[middle...]), report: &report)
        case .retry(let after):
            consecutiveFailures += 1
            let delay: Double
            if let after, after >= 0 {
                delay = after
            } else {
                delay = destination.policy.backoff.delay(afterFailures: consecutiveFailures, unit: random())
            }
            currentBackoff = delay
            nextAttemptAt = clock.now.addingTimeInterval(delay)
            stats.retried += events.count
            report.failureCount += events.count
            report.retryDelay = delay
            logger.log(
                .info,
                "destination '\(destination.id)': \(events.count) event(s) kept for a retry in \(delay) s"
            )
            return .retry
        }
    }

    private func succeeded() {
        consecutiveFailures = 0
        currentBackoff = nil
        nextAttemptAt = nil
        lastSuccessAt = clock.now
    }

    private func remove(_ ids: [UUID]) async -> Bool {
        do {
            try await destination.cache.remove(ids: ids)
            return true
        } catch {
            logger.log(.error, "destination '\(destination.id)': removing sent events from the cache failed: \(error)")
            return false
        }
    }

    // MARK: Round exclusion

    private func acquireRound() async {
        if !isDelivering {
            isDelivering = true
            return
        }
        await withCheckedContinuation { roundWaiters.append($0) }
    }

    private func releaseRound() {
        if roundWaiters.isEmpty {
            isDelivering = false
        } else {
            // Hand the round over directly so no newcomer slips in between.
            roundWaiters.removeFirst().resume()
        }
    }
}
