import TelemetryKitSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// How the intake's events become finished events in the destinations' queues: the pipeline,
// the transformations that run before any destination, the ingest's rules, and the appends.
extension TelemetryClient {
    /// An awaited send of the current append group, and its outcome when already known
    /// (filtered, failed); nil means the group's append decides it.
    private typealias Waiting = (continuation: CheckedContinuation<SendOutcome, Never>, outcome: SendOutcome?)

    /// Runs `items`, one take of the intake, through the pipeline and appends them in groups:
    /// the whole take, or, whenever the previous append has ended by the time another
    /// `earlyGroupMinimum` events are processed, those events at once (a barrier among them
    /// also ends a group); returns the append of the last group, which may still be committing.
    ///
    /// Why groups start before the take's end: the cache commits one while the pipeline runs
    /// the next, and the last group, whose commit nothing overlaps (a `waitUntilProcessed`, the
    /// end of a burst), holds only what was processed during the commit before it. With the
    /// whole take (up to 512 events) as one group, a burst of 1,000 events ended with a commit
    /// of about 500 that the pipeline had waited for.
    ///
    /// Why the last append is not awaited here: a durable cache commits on a thread of its
    /// own, and waiting for it before processing the next items left one of the two cores
    /// idle at a time (the pipeline waited for the disk, the disk for the pipeline).
    /// Appends still run one at a time and in order, each starting after the previous one
    /// ended (`previous`), so the overflow's rules and the cache's order hold; the intake's
    /// turn stays with the consumer meanwhile (``Intake/nextKeepingTurn()``), so no inline
    /// `send` can overtake a group in flight; a barrier waits for it.
    func process(
        _ items: consuming [Intake.Item],
        after previous: GroupAppend?
    ) async -> GroupAppend? {
        var inFlight = previous
        var events: [Event] = []
        var waiting: [Waiting] = []
        events.reserveCapacity(items.count)
        var counters = Intake.Counters()
        // Opt-out: events that were queued when analytics were disabled are not processed.
        let droppingAll = features.analyticsDisabled

        // Each item is moved out of the take rather than copied out of it and released with
        // the array (a copy retains every reference an event input holds): popped from the
        // take's end into a reversed array, then popped from that one's end, in order.
        // (`reverse()` would copy: it swaps by copying.) A take of one is already in order.
        var remaining = items
        if remaining.count > 1 {
            var take: [Intake.Item] = []
            swap(&take, &remaining)
            take.popReversed(into: &remaining)
        }
        while let item = remaining.popLast() {
            switch consume item {
            case .event(let input, let seed, let continuation):
                if droppingAll {
                    features.countDropped(1)
                    continuation?.resume(returning: .droppedByOptOut)
                    continue
                }
                var outcome: SendOutcome?
                switch await finalizedEvent(input, seed: seed, counters: &counters) {
                case .event(let event): events.append(event)
                case .dropped(let reason): outcome = reason
                }
                if let continuation { waiting.append((continuation, outcome)) }
                // The caches are idle: hand them what is ready instead of the whole take at
                // its end, so that they commit while the pipeline goes on and the last group,
                // whose commit nothing overlaps, stays small.
                if events.count % Self.earlyGroupMinimum == 0, events.count > 0 {
                    if let previous = inFlight, !previous.hasEnded {
                        // Its end (a resumption after the commit) may wait for this thread.
                        await Task.yield()
                    }
                    if inFlight?.hasEnded ?? true {
                        inFlight = await startAppend(&events, resuming: &waiting, after: inFlight)
                    }
                }
            case .barrier(let continuation, let work):
                // Someone waits for this group (`waitUntilProcessed`, `initialize`), or has
                // work to do between the events before and after (`removeAllData`).
                inFlight = await startAppend(&events, resuming: &waiting, after: inFlight)
                await inFlight?.task.value
                inFlight = nil
                await work?()
                continuation.resume()
            }
        }
        inFlight = await startAppend(&events, resuming: &waiting, after: inFlight)
        intake.add(counters)
        return inFlight
    }

    /// Waits for the append in flight (`previous`), then starts appending `events` (none:
    /// returns `previous`, done); the new append resumes the awaited sends among them with
    /// what happened.
    private func startAppend(
        _ events: inout [Event],
        resuming waiting: inout [Waiting],
        after previous: GroupAppend?
    ) async -> GroupAppend? {
        guard !events.isEmpty || !waiting.isEmpty else { return previous }
        await previous?.task.value
        let (group, waiters) = (events, waiting)
        events.removeAll(keepingCapacity: true)
        waiting.removeAll(keepingCapacity: true)
        let ended = Locked(false)
        let task = Self.startedHere {
            let heldFor = await self.append(group)
            let outcome: SendOutcome = heldFor.isEmpty ? .cached : .heldInMemory(destinations: heldFor)
            for (continuation, known) in waiters {
                continuation.resume(returning: known ?? outcome)
            }
            ended.set(true)
        }
        return GroupAppend(task: task, ended: ended)
    }

    /// The append of one group to the destinations, started by `startAppend`.
    struct GroupAppend: Sendable {
        let task: Task<Void, Never>
        /// Set once the append has ended: the caches are free for the next group.
        let ended: Locked<Bool>

        var hasEnded: Bool { ended.current }
    }

    /// The fewest processed events handed to idle caches before the take's end (see
    /// `process(_:after:)`): below it, a commit's fixed cost outweighs what it overlaps.
    private static let earlyGroupMinimum = 32

    /// A task that runs `operation` on the current thread until its first suspension, where
    /// the runtime has that (`Task.immediate`), or an ordinary task.
    ///
    /// Why for a group's append: its first steps hand the group to the destinations' caches
    /// (a durable cache queues it for its I/O thread and suspends), and the intake task goes on
    /// with the next take meanwhile. An ordinary task would make those steps wait for a free
    /// thread of the cooperative pool, which the intake task itself holds until its next
    /// suspension (on a 2-core Linux machine the pool did not bring in its second thread
    /// while the first was busy): the cache's thread then stood idle while the pipeline ran,
    /// and the pipeline while the cache committed.
    private static func startedHere(_ operation: sending @escaping () async -> Void) -> Task<Void, Never> {
        if #available(macOS 26, iOS 26, tvOS 26, watchOS 26, visionOS 26, *) {
            return Task.immediate(operation: operation)
        }
        return Task(operation: operation)
    }

    /// Processes the single event of an inline `send` (see ``Intake/beginInline()``).
    nonisolated(nonsending) func processInline(
        _ input: EventInput,
        seed: ContextSeed
    ) async -> (Intake.Counters, SendOutcome) {
        var counters = Intake.Counters()
        if features.analyticsDisabled {
            features.countDropped(1)
            return (counters, .droppedByOptOut)
        }
        switch await finalizedEvent(input, seed: seed, counters: &counters) {
        case .event(let event):
            let heldFor = await append([event])
            return (counters, heldFor.isEmpty ? .cached : .heldInMemory(destinations: heldFor))
        case .dropped(let outcome):
            return (counters, outcome)
        }
    }

    /// The pipeline's result for one input.
    private enum Finalized {
        case event(Event)
        /// Filtered or failed (counted and logged).
        case dropped(SendOutcome)
    }

    /// Runs one input through the pipeline and the after-processors transformations.
    nonisolated(nonsending) private func finalizedEvent(
        _ input: EventInput,
        seed: ContextSeed,
        counters: inout Intake.Counters
    ) async -> Finalized {
        counters.processed += 1
        var context = EventContext(userIdentifier: seed.userIdentifier)
        if !seed.defaultParameters.isEmpty {
            context.addParameters(seed.defaultParameters)
        }
        do {
            let processed = try await pipeline.process(input, context: context)
            let event = afterProcessors.isEmpty ? processed : await afterProcessors.run(on: processed, destination: nil)
            guard let event else {
                counters.filtered += 1
                return .dropped(.filtered)
            }
            if let refusal = EventRules.refusal(for: event, maximumBytes: configuration.maxEventBytes) {
                counters.refused += 1
                refusals.report(refusal, to: logger)
                return .dropped(.refused(refusal))
            }
            return .event(event)
        } catch ProcessorError.eventFiltered {
            counters.filtered += 1
            return .dropped(.filtered)
        } catch {
            counters.failed += 1  // the pipeline logged it
            return .dropped(.processingFailed)
        }
    }

    /// Hands `events` to every destination's dispatcher, which caches them or holds them in
    /// memory when its cache fails (see ``CacheOverflow``); returns those destinations' ids.
    nonisolated(nonsending) private func append(_ events: [Event]) async -> [String] {
        guard !events.isEmpty else { return [] }
        var heldFor: [String] = []
        for dispatcher in dispatchers {
            if await dispatcher.accept(events) { heldFor.append(dispatcher.id) }
        }
        return heldFor
    }
}
