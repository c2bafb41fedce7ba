import TelemetryKitSupport

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
///
/// The dispatcher is the only owner of its destination's cache and overflow: the client
/// hands it events (``accept(_:)``), asks it to purge, count, and flush (``flush(deadline:)``,
/// also shutdown's), so the order rules between overflow and cache, and the one retry loop,
/// live in one place. The state and the entry points are here; one delivery round is in
/// Dispatcher+Delivery.swift.
actor Dispatcher {
    enum RoundEnd: Sendable {
        case empty
        case retry
        case failed
        /// The network or the policy allows no send now (see ``DeliveryConditions``); nothing
        /// failed, so nothing is counted and the backoff does not grow.
        case held
    }

    /// The destination's id, for the client's stats and outcomes.
    nonisolated let id: String
    let destination: Destination
    /// The way into the destination's cache: ``accept(_:)`` appends through it.
    let overflow: CacheOverflow
    let transformations: [any EventTransformation]
    let clock: any TelemetryClock
    let logger: any Logging
    let observer: (@Sendable (DeliveryReport) -> Void)?
    let random: @Sendable () -> Double

    var stats = DestinationStats()
    /// Accepted events, counted outside the actor (see ``recordAccepted(_:)``).
    private let acceptedCount = Locked(0)
    var consecutiveFailures = 0
    var currentBackoff: Double?
    var nextAttemptAt: Date?
    /// Until when the receiver asked not to be sent to (`Retry-After`): even an explicit
    /// flush waits for it, where our own backoff gives way to one.
    var receiverAskedToWaitUntil: Date?
    var lastSuccessAt: Date?
    var lastRoundAt: Date
    /// Rounds never overlap: one holds this turn from its peek to its removal.
    let rounds = AsyncTurn()
    private var timerTask: Task<Void, Never>?
    private var thresholdTask: Task<Void, Never>?
    /// The round started when the conditions let more be sent (see ``update(conditions:)``).
    private var resumeTask: Task<Void, Never>?
    /// What the network and power allow now.
    private(set) var conditions = DeliveryConditions.unrestricted
    /// Counts ``purge()``s; a round compares it with ``roundGeneration`` after each wait, so
    /// that a batch read or in flight when the queue was erased is neither sent again nor
    /// counted nor kept.
    var generation = 0
    var roundGeneration = 0
    var erasedDuringRound: Bool { generation != roundGeneration }
    /// The transformations' results for the batch last sent, by event id, while it may be
    /// sent again (see ``transform(_:ids:)``).
    var transformedBatch: [UUID: Event?] = [:]

    init(
        destination: Destination,
        transformations: [any EventTransformation],
        clock: any TelemetryClock,
        logger: any Logging,
        observer: (@Sendable (DeliveryReport) -> Void)?,
        random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) {
        self.id = destination.id
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
        resumeTask?.cancel()
        resumeTask = nil
    }

    /// Takes in new network and power conditions. When they let more be sent than before (the
    /// network came back, Low Data Mode ended), what waits is sent now rather than at the next
    /// tick, and our own backoff from before is forgotten: its failures were most likely the
    /// missing network. A receiver's `Retry-After` still holds.
    func update(conditions new: DeliveryConditions) {
        let old = conditions
        guard new != old else { return }
        conditions = new
        if old.isOnline != new.isOnline {
            logger.log(
                .info,
                new.isOnline
                    ? "destination '\(destination.id)': the network is back, sending resumes"
                    : "destination '\(destination.id)': no network, sending waits for it"
            )
        }
        guard timerTask != nil else { return }  // not started, or stopped
        // The timer sleeps for the interval of the old conditions (Low Power Mode changes it).
        timerTask?.cancel()
        timerTask = nil
        startTimer()
        guard
            Self.rank(destination.policy.networkUse(under: new)) > Self.rank(destination.policy.networkUse(under: old))
        else { return }
        consecutiveFailures = 0
        currentBackoff = nil
        nextAttemptAt = receiverAskedToWaitUntil
        resumeTask?.cancel()
        resumeTask = Task { [weak self] in
            _ = await self?.deliver(force: false)
        }
    }

    /// Orders what conditions allow: nothing (offline) < never < when needed < always.
    private static func rank(_ use: DeliveryPolicy.NetworkUse?) -> Int {
        switch use {
        case nil: 0
        case .never?: 1
        case .whenNeeded?: 2
        case .always?: 3
        }
    }

    /// Whether the conditions let a round send now; `force`: the app flushes.
    func conditionsAllowSending(force: Bool) async -> Bool {
        switch destination.policy.networkUse(under: conditions) {
        case nil, .never?:
            return false
        case .always?:
            return true
        case .whenNeeded?:
            if force { return true }
            return await destination.cache.count() + overflow.count >= destination.policy.deferredSendThreshold
        }
    }

    private func secondsUntilNextTimedRound() -> Double {
        let now = clock.now
        var wake = lastRoundAt.addingTimeInterval(destination.policy.interval(under: conditions))
        if let nextAttemptAt, nextAttemptAt > wake { wake = nextAttemptAt }
        return max(0, wake.timeIntervalSince(now))
    }

    private func timerFired() async {
        // Retry a failed cache on every tick, even while the transmitter backs off.
        await drainOverflow()
        let now = clock.now
        if let nextAttemptAt, now < nextAttemptAt { return }
        if now < lastRoundAt.addingTimeInterval(destination.policy.interval(under: conditions)) && nextAttemptAt == nil
        {
            return
        }
        _ = await deliver(force: false)
    }

    // MARK: Intake

    /// Appends `events` to the cache after any held in memory, or holds them there when the
    /// cache fails (see ``CacheOverflow``); returns whether they are held.
    ///
    /// `nonisolated(nonsending)`: it runs on the client's intake (or an inline `send`'s
    /// executor), so a working cache is appended to without a hop onto this actor; only a
    /// configured send threshold asks the actor. One caller at a time (the client's intake).
    nonisolated(nonsending) func accept(_ events: [Event]) async -> Bool {
        let result = await overflow.append(events)
        if result.cached > 0, recordAccepted(result.cached) {
            await checkThreshold()
        }
        return result.held
    }

    /// Empties the overflow and the cache (analytics were disabled); returns how many events
    /// were discarded. A cache that cannot be cleared is logged, and its events not counted.
    func purge() async -> Int {
        generation += 1
        // The overflow first: a drain in flight finishes into the cache, purged next.
        var purged = await overflow.removeAll()
        transformedBatch.removeAll()
        let queued = await destination.cache.count()
        do {
            try await destination.cache.removeAll()
            purged += queued
        } catch {
            logger.log(
                .error,
                "analytics disabled: the queue of destination '\(destination.id)' could not be cleared: \(error)"
            )
        }
        return purged
    }

    /// Empties the overflow and the cache because the user's data is erased; returns the
    /// error of a cache that could not be cleared (logged). A round in flight drops its batch
    /// (see ``generation``).
    func erase() async -> (any Error)? {
        generation += 1
        _ = await overflow.removeAll()
        transformedBatch.removeAll()
        do {
            try await destination.cache.removeAll()
            return nil
        } catch {
            logger.log(
                .error,
                "removeAllData: the queue of destination '\(destination.id)' could not be cleared: \(error)"
            )
            return error
        }
    }

    /// Counts events that entered the cache, without an actor hop. Returns `true` when a
    /// send threshold is configured and ``checkThreshold()`` should run.
    private nonisolated func recordAccepted(_ count: Int) -> Bool {
        acceptedCount.withLock { $0 += count }
        return destination.policy.sendThreshold != nil
    }

    /// Starts a delivery round when the queue reached the policy's send threshold.
    private func checkThreshold() async {
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

    /// Queued and held events with the backoff state, for ``TelemetryClient/deliveryStatus(of:)``.
    func status() async -> DeliveryStatus {
        DeliveryStatus(
            destinationID: destination.id,
            queued: await destination.cache.count(),
            heldInMemory: overflow.count,
            lastSuccess: lastSuccessAt,
            currentBackoff: currentBackoff,
            nextAttempt: nextAttemptAt,
            conditions: conditions
        )
    }

    // MARK: Flush

    /// What a flush left behind.
    struct Remaining: Sendable {
        /// Events still in the cache.
        var queued = 0
        /// Events still held in memory because the cache fails (lost when the process ends).
        var heldInMemory = 0
        /// Events the receiver refused for good during the flush (dropped and counted).
        var rejected = 0
    }

    /// Delivers the queue, ignoring our own running backoff (not a receiver's `Retry-After`),
    /// and returns what is left.
    ///
    /// It runs one round: a destination that asks to retry keeps its events for later. With
    /// `retrying` (shutdown), the same round is retried after each backoff until the queue is
    /// empty, the cache fails or the next retry would come after the deadline, so there is
    /// one retry loop for both. The first round always runs, however late: a shutdown that
    /// began on a busy thread still tries to deliver once.
    ///
    /// A `deadline` is kept whatever the receiver does: a request still unanswered then is
    /// cancelled, and its batch stays queued without counting as a failure (transmitters
    /// honour cancellation, see `EventTransmitting`). It is wall time even with an injected
    /// clock: shutdown must end. Held events get a last attempt at the cache at the end: what
    /// the cache takes now survives the process.
    func flush(deadline: Date?, retrying: Bool = false) async -> Remaining {
        let rejectedBefore = stats.rejected
        if let deadline {
            await withTaskGroup(of: Void.self) { group in
                group.addTask { await self.flushRounds(deadline: deadline, retrying: retrying) }
                group.addTask {
                    let wallClock = SystemClock()
                    try? await wallClock.sleep(for: max(0, deadline.timeIntervalSince(wallClock.now)))
                }
                await group.next()
                group.cancelAll()
            }
        } else {
            await flushRounds(deadline: nil, retrying: false)
        }
        await drainOverflow()
        return Remaining(
            queued: await destination.cache.count(),
            heldInMemory: overflow.count,
            rejected: stats.rejected - rejectedBefore
        )
    }

    private func flushRounds(deadline: Date?, retrying: Bool) async {
        let wallClock = SystemClock()
        while true {
            let end = await deliver(force: true)
            guard case .retry = end, retrying, let deadline, !Task.isCancelled else { return }
            let backoff = currentBackoff ?? 1
            // Waiting for a retry the deadline would cut off only delays the shutdown.
            guard backoff < deadline.timeIntervalSince(wallClock.now) else { return }
            do {
                try await wallClock.sleep(for: backoff)
            } catch {
                return
            }
            // Waited out in wall time (the injected clock may stand still).
            receiverAskedToWaitUntil = nil
        }
    }
}
