import TelemetryKitSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// One delivery round of the dispatcher: take the oldest events (from the memory overflow
// first), transform, transmit, and act on the outcome.
extension Dispatcher {
    /// Runs one delivery round: drains the queue until it is empty or a transmission asks
    /// for a retry. `force` ignores a running backoff (an explicit flush).
    ///
    /// Events held in memory go into the cache first (caching does not wait for a backoff),
    /// and again when the cache is empty, for those held while the round ran. `.empty` says
    /// the cache is empty; some events may still be held in memory.
    func deliver(force: Bool) async -> RoundEnd {
        await rounds.acquire()
        defer { rounds.release() }
        roundGeneration = generation
        await drainOverflow()
        if !force, let nextAttemptAt, clock.now < nextAttemptAt { return .retry }
        if let receiverAskedToWaitUntil, clock.now < receiverAskedToWaitUntil { return .retry }
        // A round held by the conditions counts as a round: the timer's next one is an
        // interval away, not due at once again.
        lastRoundAt = clock.now
        guard await conditionsAllowSending(force: force) else { return .held }

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
                // What memory holds does not depend on the disk: send it from there.
                attempted = attempted || overflow.count > 0
                return await deliverHeld(report: &report) ?? .failed
            }
            if erasedDuringRound { return .held }
            if peeked.isEmpty {
                if overflow.count > 0, await drainOverflow() > 0 { continue }
                // The cache is empty but will not take the held events: send them from memory.
                attempted = attempted || overflow.count > 0
                return await deliverHeld(report: &report) ?? .empty
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
            let end = await transmit(batch.events, ids: batch.ids, from: .cache, report: &report)
            switch end {
            case .empty: continue
            case .retry, .failed, .held: return end
            }
        }
    }

    /// Sends the events held in memory (the cache fails) straight from there, oldest first,
    /// removing them from memory as they are delivered or refused; nil when none are held.
    private func deliverHeld(report: inout DeliveryReport) async -> RoundEnd? {
        guard overflow.count > 0 else { return nil }
        while !Task.isCancelled {
            let batch = prepare(overflow.oldest(destination.policy.maxBatchCount))
            if !batch.expired.isEmpty {
                await overflow.remove(ids: batch.expired)
                stats.evicted += batch.expired.count
            }
            if batch.events.isEmpty {
                if overflow.count == 0 { return .empty }
                continue
            }
            let end = await transmit(batch.events, ids: batch.ids, from: .memory, report: &report)
            guard case .empty = end else { return end }
            if overflow.count == 0 { return .empty }
        }
        return .retry
    }

    /// Where a batch being sent is kept until it is delivered or refused.
    private enum Source {
        case cache
        /// The in-memory overflow (the cache fails).
        case memory
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
    ///
    /// Each event is transformed once while the process lives, not once per round: a batch
    /// kept for a retry is peeked again with the same ids, and its results are reused from
    /// ``transformedBatch`` (a transformation may be slow, e.g. a script, or count what it
    /// sees). Only the batch last sent is kept, so the memory is bounded by one batch. After
    /// a relaunch the cached events (stored untransformed, so that a changed configuration
    /// applies to them) are transformed again.
    private func transform(_ events: [Event], ids: [UUID]) async -> [Event?] {
        guard !transformations.isEmpty else { return events }
        var result = [Event?]()
        result.reserveCapacity(events.count)
        var memo: [UUID: Event?] = [:]
        memo.reserveCapacity(events.count)
        for (index, event) in events.enumerated() {
            let current: Event?
            if let known = transformedBatch[ids[index]] {
                current = known
            } else {
                current = await transformations.run(on: event, destination: destination.id)
            }
            memo[ids[index]] = .some(current)
            result.append(current)
        }
        transformedBatch = memo
        return result
    }

    /// Transmits `events` (the cache's copies, with `ids`), halving on `.payloadTooLarge`.
    private func transmit(
        _ events: [Event],
        ids: [UUID],
        from source: Source,
        report: inout DeliveryReport
    ) async -> RoundEnd {
        let transformed = await transform(events, ids: ids)
        if erasedDuringRound { return .held }
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
            guard await remove(dropped, from: source) else { return .failed }
            stats.filtered += dropped.count
        }
        guard !sendable.isEmpty else { return .empty }
        return await send(sendable, ids: sendableIDs, from: source, report: &report)
    }

    private func send(
        _ events: [Event],
        ids: [UUID],
        from source: Source,
        report: inout DeliveryReport
    ) async -> RoundEnd {
        let outcome = await destination.transmitter.transmit(events)
        if erasedDuringRound {
            // The queue was erased while this batch was on its way: whatever the receiver
            // said, nothing of it is kept, counted or sent again.
            return .held
        }
        if case .retry = outcome, Task.isCancelled {
            // Cut short by the cancellation, not refused by the receiver: the events stay
            // queued, and no backoff or retry is counted against the destination.
            return .retry
        }
        if case .retry = outcome, !conditions.isOnline {
            // The network went away during the request: the receiver did not fail, so
            // nothing counts against it; the events wait for the network to come back.
            return .held
        }
        switch outcome {
        case .delivered:
            guard await remove(ids, from: source) else { return .failed }
            stats.delivered += events.count
            report.successCount += events.count
            succeeded()
            return .empty
        case .rejected(let reason) where events.count > 1 && Self.mayConcernSomeEvents(reason):
            // A batch refused for its content may hold one bad event among good ones: halve
            // it until the refused ones stand alone, so that only they are dropped.
            return await sendHalves(events, ids: ids, from: source, report: &report)
        case .rejected(let reason):
            guard await remove(ids, from: source) else { return .failed }
            stats.rejected += events.count
            report.failureCount += events.count
            report.rejections.append(reason)
            // The one warning for a rejection: the dispatcher knows the destination and the
            // count, and the reason carries the transmitter's details (status, message), so
            // transmitters do not log it (and one that does not log is not silent).
            logger.log(.warning, "destination '\(destination.id)' rejected \(events.count) event(s): \(reason)")
            // The receiver answered: no backoff, but nothing was delivered either.
            resetBackoff()
            return .empty
        case .payloadTooLarge:
            if events.count == 1 {
                let reason = RejectionReason("a single event is larger than the receiver accepts", statusCode: 413)
                guard await remove(ids, from: source) else { return .failed }
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
            return await sendHalves(events, ids: ids, from: source, report: &report)
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
            receiverAskedToWaitUntil = (after ?? -1) >= 0 ? nextAttemptAt : nil
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

    /// Sends the two halves of a batch one after the other (a receiver refused it whole).
    private func sendHalves(
        _ events: [Event],
        ids: [UUID],
        from source: Source,
        report: inout DeliveryReport
    ) async -> RoundEnd {
        let middle = events.count / 2
        let first = await send(Array(events[..<middle]), ids: Array(ids[..<middle]), from: source, report: &report)
        guard case .empty = first else { return first }
        return await send(Array(events[middle...]), ids: Array(ids[middle...]), from: source, report: &report)
    }

    /// Whether a rejection may concern only some events of the batch (400 Bad Request, 422
    /// Unprocessable Content, or a transmitter's own reason), rather than every request to
    /// this receiver (401, 403, 404, 501, 505: a wrong app id, namespace or address).
    private static func mayConcernSomeEvents(_ reason: RejectionReason) -> Bool {
        guard let status = reason.statusCode else { return true }
        return status == 400 || status == 422
    }

    private func succeeded() {
        resetBackoff()
        lastSuccessAt = clock.now
    }

    private func resetBackoff() {
        consecutiveFailures = 0
        currentBackoff = nil
        nextAttemptAt = nil
        receiverAskedToWaitUntil = nil
    }

    private func remove(_ ids: [UUID], from source: Source) async -> Bool {
        for id in ids { transformedBatch.removeValue(forKey: id) }
        if case .memory = source {
            await overflow.remove(ids: ids)
            return true
        }
        do {
            try await destination.cache.remove(ids: ids)
            return true
        } catch {
            logger.log(.error, "destination '\(destination.id)': removing sent events from the cache failed: \(error)")
            return false
        }
    }
}
