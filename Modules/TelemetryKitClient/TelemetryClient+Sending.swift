import TelemetryKitSupport

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

// What an app calls to send events and to wait for them: fire-and-forget, awaited sends with
// their outcome, flushes with and without a deadline.
extension TelemetryClient {
    /// Sends an event without waiting. Events are processed in call order.
    public func event(
        _ name: String,
        parameters: EventParameters = [:],
        floatValue: Double? = nil,
        customUserID: String? = nil
    ) {
        guard !features.dropsEvent() else { return }  // opt-out
        intake.enqueue(
            .event(
                EventInput(name, parameters: parameters, floatValue: floatValue, customUserID: customUserID),
                currentSeed,
                nil
            ),
            logger: logger
        )
    }

    /// Sends an event without waiting. Events are processed in call order.
    public func event(_ input: EventInput) {
        guard !features.dropsEvent() else { return }  // opt-out
        intake.enqueue(.event(input, currentSeed, nil), logger: logger)
    }

    /// Sends an event and returns once it is in every destination's cache, held in memory for
    /// a destination whose cache fails, or dropped; the result says which.
    ///
    /// Sent before `start()`, it returns once `start()` processed it.
    ///
    /// It runs on the caller's executor (`nonisolated(nonsending)`): when nothing else is
    /// being processed, the event goes through the processors' synchronous paths, the
    /// finalizer and an in-memory cache right there — awaited from the main actor, without
    /// leaving it. Otherwise it waits for the intake
    /// task; a durable cache's write and fsync run off the caller's executor.
    @discardableResult
    nonisolated(nonsending) public func send(_ input: EventInput) async -> SendOutcome {
        guard !features.dropsEvent() else { return .droppedByOptOut }
        if intake.beginInline() {
            // Idle and nothing queued: process here instead of waking the consumer and
            // waiting for it (call order holds: later events queue behind this turn).
            let (counters, outcome) = await processInline(input, seed: currentSeed)
            intake.endInline(adding: counters)
            return outcome
        }
        return await withCheckedContinuation { (continuation: CheckedContinuation<SendOutcome, Never>) in
            intake.enqueue(.event(input, currentSeed, continuation), logger: logger)
        }
    }

    /// Sends an event and returns once it is in every destination's cache, held in memory for
    /// a destination whose cache fails, or dropped; the result says which.
    @discardableResult
    nonisolated(nonsending) public func send(
        _ name: String,
        parameters: EventParameters = [:],
        floatValue: Double? = nil,
        customUserID: String? = nil
    ) async -> SendOutcome {
        await send(EventInput(name, parameters: parameters, floatValue: floatValue, customUserID: customUserID))
    }

    /// Processes everything sent so far, writes the ``storage``'s pending changes, and delivers
    /// every destination's queue completely, or until a destination asks to retry later.
    ///
    /// Events held in memory (a cache fails) are cached first; while any remain, the result
    /// is `.incomplete` and counts them. Events a receiver refused for good during the flush
    /// make it `.rejected`: dropped, never reported as delivered. A receiver's `Retry-After`
    /// is honoured (its events wait); our own backoff is not (an explicit flush tries now).
    /// A request takes as long as the transmitter allows (30 s by default for HTTP); use
    /// ``flush(timeout:)`` where a deadline matters.
    @discardableResult
    public func flush() async -> FlushResult {
        await flush(until: nil)
    }

    /// ``flush()``, returning by `timeout` seconds from now whatever the receivers do: a
    /// request still unanswered then is cancelled and its events stay queued (counted in the
    /// result's `remaining`).
    ///
    /// ```swift
    /// let result = await client.flush(timeout: 2)   // at most about 2 s
    /// ```
    @discardableResult
    public func flush(timeout: TimeInterval) async -> FlushResult {
        await flush(until: SystemClock().now.addingTimeInterval(max(0, timeout)))
    }

    /// ``flush()`` inside running time the system granted for a while, such as a
    /// `BGProcessingTask` or `BGAppRefreshTask` the app scheduled: `expiration` installs the
    /// handler the system calls when the time runs out, and that handler stops the flush.
    ///
    /// Why: background time ends without warning beyond that handler, and a task that
    /// overruns it is killed. When the handler runs, the request in flight is cancelled and
    /// no further batch starts: what was delivered is out of the queue, the batch cut short
    /// and the rest stay queued for the next time, and the result counts them.
    ///
    /// ```swift
    /// BGTaskScheduler.shared.register(forTaskWithIdentifier: "com.example.telemetry", using: nil) { task in
    ///     Task {
    ///         let result = await client.flush(expiration: { task.expirationHandler = $0 })
    ///         task.setTaskCompleted(success: result == .complete)
    ///     }
    /// }
    /// ```
    ///
    /// Cancelling the calling task stops the flush the same way.
    @discardableResult
    public func flush(expiration: (_ handler: @escaping @Sendable () -> Void) -> Void) async -> FlushResult {
        let delivery = Task { await self.flush(until: nil) }
        expiration { delivery.cancel() }
        return await withTaskCancellationHandler {
            await delivery.value
        } onCancel: {
            delivery.cancel()
        }
    }

    private func flush(until deadline: Date?) async -> FlushResult {
        let running = runtime.withLock { $0.phase == .running }
        if running {
            await intake.barrier()
        }
        await storage.flush()  // the processors' state too, not only the events
        let (remaining, rejected) = await withTaskGroup(of: Dispatcher.Remaining.self) { group in
            for dispatcher in dispatchers {
                group.addTask { await dispatcher.flush(deadline: deadline) }
            }
            return await group.reduce((0, 0)) { sum, left in
                (sum.0 + left.queued + left.heldInMemory, sum.1 + left.rejected)
            }
        }
        if rejected > 0 { return .rejected(count: rejected, remaining: remaining) }
        return remaining == 0 ? .complete : .incomplete(remaining: remaining)
    }

    /// Waits until every event sent so far went through the pipeline and into the caches.
    public func waitUntilProcessed() async {
        guard runtime.withLock({ $0.phase == .running }) else { return }
        await intake.barrier()
    }
}
