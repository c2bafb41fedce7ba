import TelemetryKitSupport

/// The client's ordered intake: a lock-protected queue drained by one consumer task.
///
/// Producers append under a short lock and wake the consumer only if it is waiting, so
/// `event()` costs a lock and an array append. Before `start()`, events go to a bounded
/// pre-start buffer (oldest dropped and counted) that is replayed first.
///
/// At most one party processes at a time (`busy`): normally the consumer task; but an
/// awaited `send` that finds the intake idle and empty processes its own event inline
/// (``beginInline()`` / ``endInline()``), saving two thread hand-offs. Whatever arrives
/// meanwhile waits in `pending` and goes to the consumer afterwards, so call order holds.
///
/// The consumer takes at most `takeLimit` items at a time and appends what it took in one
/// group, or in several when the caches are free before the take is processed (see
/// `TelemetryClient.process(_:after:)`): this is the only batching between `send` and a cache
/// (whose group committer then merges appends that meet on its thread).
final class Intake: Sendable {
    enum Item: Sendable {
        /// An event, the client state at the time it was sent, and the continuation of an
        /// awaited `send` to resume with its outcome once it is cached (or held, or dropped).
        case event(EventInput, ContextSeed, CheckedContinuation<SendOutcome, Never>?)
        /// Resumed once every earlier item is processed and cached, and `then` (if any) ran;
        /// no later item is processed before.
        case barrier(CheckedContinuation<Void, Never>, then: (@Sendable () async -> Void)?)
    }

    struct Counters: Sendable {
        var processed = 0
        var filtered = 0
        var failed = 0
        var refused = 0

        mutating func add(_ other: Counters) {
            processed += other.processed
            filtered += other.filtered
            failed += other.failed
            refused += other.refused
        }
    }

    private enum Owner {
        case none, consumer, inline
    }

    private struct State {
        var started = false
        var closed = false
        var preStart: BoundedBuffer<Item>
        var pending: [Item] = []
        var waiter: CheckedContinuation<[Item]?, Never>?
        /// Who is processing items now, if anyone.
        var owner = Owner.none

        var busy: Bool { owner != .none }
        var counters = Counters()
        var droppedAfterClose = 0
        let takeLimit: Int

        /// The oldest pending items, at most `takeLimit` of them.
        mutating func take() -> [Item] {
            guard pending.count > takeLimit else {
                defer { pending = [] }
                return pending
            }
            // Moved, not copied: `Array(pending.prefix(takeLimit))` then `removeFirst` retained
            // and released every reference of the items taken. The items after the take are
            // popped into a reversed array and back.
            var reversedRest: [Item] = []
            pending.popReversed(into: &reversedRest, keeping: takeLimit)
            let taken = pending
            pending = []
            reversedRest.popReversed(into: &pending)
            return taken
        }
    }

    private let state: Locked<State>

    /// - Parameters:
    ///   - preStartLimit: How many items the pre-start buffer keeps (the oldest are dropped).
    ///   - takeLimit: How many items the consumer takes at a time, at least 1.
    init(preStartLimit: Int, takeLimit: Int) {
        state = Locked(State(preStart: BoundedBuffer(capacity: preStartLimit), takeLimit: max(1, takeLimit)))
    }

    /// What ``enqueue(_:logger:)`` does once it has let go of the lock.
    private enum Enqueued {
        case queued
        case handedToConsumer(CheckedContinuation<[Item]?, Never>, [Item])
        case dropped(Item, afterShutdown: Bool)
    }

    func enqueue(_ item: consuming Item, logger: any Logging) {
        // Moved into the queue, not copied into it and released here: a copy of an item
        // retains every reference an event input holds.
        var item = Optional(item)
        // Returned from the lock and switched on with `consume`, so that nothing of it is
        // copied out and destroyed after (optionals kept beside the lock were, per event).
        let enqueued = state.withLock { state -> Enqueued in
            guard let moved = item.take() else { return .queued }
            if state.closed {
                state.droppedAfterClose += 1
                return .dropped(moved, afterShutdown: true)
            } else if !state.started {
                guard let dropped = state.preStart.append(moved) else { return .queued }
                return .dropped(dropped, afterShutdown: false)
            } else if !state.busy, let waiter = state.waiter {
                state.waiter = nil
                state.owner = .consumer
                state.pending.append(consume moved)
                return .handedToConsumer(waiter, state.take())
            } else {
                state.pending.append(consume moved)
                return .queued
            }
        }
        switch consume enqueued {
        case .queued:
            return
        case .handedToConsumer(let waiter, let items):
            waiter.resume(returning: items)
        case .dropped(let dropped, let afterShutdown):
            if afterShutdown {
                logger.log(.warning, "an event was sent after shutdown and was dropped")
            }
            Intake.resumeAll([dropped], with: afterShutdown ? .droppedAfterShutdown : .droppedBeforeStart)
        }
    }

    /// Marks the intake started: the pre-start buffer goes first. Returns how many events the
    /// full buffer dropped.
    func start() -> Int {
        var toResume: (CheckedContinuation<[Item]?, Never>, [Item])?
        let dropped = state.withLock { state -> Int in
            state.started = true
            let buffered = state.preStart.removeAll()
            state.pending = buffered + state.pending
            if !state.busy, let waiter = state.waiter, !state.pending.isEmpty {
                state.waiter = nil
                state.owner = .consumer
                toResume = (waiter, state.take())
            }
            return state.preStart.droppedCount
        }
        if let (waiter, items) = toResume {
            waiter.resume(returning: items)
        }
        return dropped
    }

    /// Stops accepting items; the consumer ends once the queue is empty.
    func close() {
        let waiter = state.withLock { state -> CheckedContinuation<[Item]?, Never>? in
            state.closed = true
            guard state.pending.isEmpty, !state.busy else { return nil }
            let waiter = state.waiter
            state.waiter = nil
            return waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The consumer's next items in order (its previous items are done); nil once closed
    /// and drained.
    func next() async -> [Item]? {
        await withCheckedContinuation { (continuation: CheckedContinuation<[Item]?, Never>) in
            let immediate = state.withLock { state -> [Item]?? in
                if state.owner == .consumer { state.owner = .none }
                if state.started && !state.busy && !state.pending.isEmpty {
                    state.owner = .consumer
                    return .some(state.take())
                }
                if state.closed && state.pending.isEmpty { return .some(nil) }
                state.waiter = continuation
                return .none
            }
            if let immediate {
                continuation.resume(returning: immediate)
            }
        }
    }

    /// The consumer's next items while it keeps its turn (its last append is still in
    /// flight), or nil when nothing is pending; then it calls ``next()`` once that append
    /// ended. Keeping the turn keeps inline sends out until then.
    func nextKeepingTurn() -> [Item]? {
        state.withLock { state in
            guard state.owner == .consumer, !state.pending.isEmpty else { return nil }
            return state.take()
        }
    }

    /// Claims the processing turn for an inline `send` when nothing is queued or running.
    /// A `true` result must be followed by ``endInline()``.
    func beginInline() -> Bool {
        state.withLock { state in
            guard state.started, !state.closed, !state.busy, state.pending.isEmpty else { return false }
            state.owner = .inline
            return true
        }
    }

    /// Ends an inline turn: what arrived meanwhile goes to the waiting consumer.
    func endInline(adding counters: Counters) {
        var toResume: (CheckedContinuation<[Item]?, Never>, [Item]?)?
        state.withLock { state in
            state.counters.add(counters)
            state.owner = .none
            guard let waiter = state.waiter else { return }
            if !state.pending.isEmpty {
                state.waiter = nil
                state.owner = .consumer
                toResume = (waiter, state.take())
            } else if state.closed {
                state.waiter = nil
                toResume = (waiter, nil)
            }
        }
        if let (waiter, items) = toResume {
            waiter.resume(returning: items)
        }
    }

    /// Waits until everything enqueued before this call is processed and cached; then runs
    /// `work` (if any) before any later item is processed. Returns whether `work` ran there:
    /// before start and after close, it does not (nothing is being processed; the caller runs
    /// it itself).
    @discardableResult
    func barrier(then work: (@Sendable () async -> Void)? = nil) async -> Bool {
        let ran = Locked(false)
        let step: (@Sendable () async -> Void)?
        if let work {
            step = {
                await work()
                ran.set(true)
            }
        } else {
            step = nil
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let accepted = state.withLock { $0.started && !$0.closed }
            if accepted {
                enqueue(.barrier(continuation, then: step), logger: SilentLogger())
            } else {
                continuation.resume()
            }
        }
        return ran.current
    }

    /// Items waiting for the consumer (tests use it to know a barrier is queued).
    var pendingCount: Int { state.withLock { $0.pending.count } }

    func add(_ counters: Counters) {
        state.withLock { $0.counters.add(counters) }
    }

    func counters() -> TelemetryStats {
        state.withLock { state in
            var stats = TelemetryStats()
            stats.processed = state.counters.processed
            stats.filtered = state.counters.filtered
            stats.failed = state.counters.failed
            stats.refused = state.counters.refused
            stats.droppedBeforeStart = state.preStart.droppedCount
            return stats
        }
    }

    /// Resumes every waiting caller of `items` (used for dropped items); awaited sends learn
    /// `outcome`.
    static func resumeAll(_ items: [Item], with outcome: SendOutcome) {
        for item in items {
            switch item {
            case .event(_, _, let continuation): continuation?.resume(returning: outcome)
            case .barrier(let continuation, _): continuation.resume()
            }
        }
    }
}

/// The client-level context of an event, captured when the event is sent: the user
/// identifier and runtime default parameters in effect at that moment.
final class ContextSeed: Sendable {
    let userIdentifier: String?
    let defaultParameters: [String: PayloadValue]

    init(userIdentifier: String?, defaultParameters: [String: PayloadValue]) {
        self.userIdentifier = userIdentifier
        self.defaultParameters = defaultParameters
    }

    static let empty = ContextSeed(userIdentifier: nil, defaultParameters: [:])
}

extension Array {
    /// Pops elements off this array's end and appends them to `destination` until `keeping`
    /// are left: they arrive in reverse order, each moved. A copy (`reverse()`, which swaps by
    /// copying, or `Array(prefix(_:))`) retains every reference an element holds and the
    /// original's release follows; the intake's items hold an event input each.
    mutating func popReversed(into destination: inout [Element], keeping: Int = 0) {
        destination.reserveCapacity(destination.count + Swift.max(0, count - keeping))
        while count > keeping, let element = popLast() {
            // `consume`: without it the optimizer copied the element into the array and
            // destroyed the popped one.
            destination.append(consume element)
        }
    }
}
