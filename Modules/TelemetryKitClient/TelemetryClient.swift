import TelemetryKitSupport

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The SDK's engine: ordered intake, the processor pipeline, caches and dispatchers.
///
/// The `Telemetry` facade wraps one client; create more for separate apps or tenants.
///
/// ```swift
/// let client = TelemetryClient(
///     configuration: .init(appID: "APP-ID"),
///     processors: [ABTestProcessor(variant: "B")],
///     destinations: [Destination(id: "ingest", transmitter: transmitter, cache: cache)],
///     storage: storage
/// )
/// await client.start()
/// client.event("Screen.shown", parameters: ["screen": "home"])
/// await client.flush()
/// ```
///
/// `event(...)` returns at once: it appends to an ordered queue under a lock (no task per
/// event). One consumer task runs the pipeline in call order and appends to every
/// destination's cache in groups; each destination's dispatcher sends from its cache.
///
/// Nothing accepted is dropped while the process lives: when a cache fails, its events wait
/// in a bounded in-memory overflow (``DeliveryPolicy/overflowLimit``) and are cached again
/// before later events. Awaited sends report it (`SendOutcome.heldInMemory(destinations:)`).
public final class TelemetryClient: Sendable {
    /// Client settings.
    public struct Configuration: Sendable {
        /// The app id put into every event.
        public var appID: String
        /// Appended to the user identifier before hashing.
        public var salt: String
        /// Events kept before `start()`; the oldest are dropped (and counted) beyond it.
        public var preStartBufferLimit: Int
        /// The longest `shutdown()` takes (seconds), whatever the receiver does: a request
        /// still unanswered then is cancelled, and its events stay queued.
        public var shutdownTimeout: TimeInterval
        /// The most bytes one finished event may encode to. A larger one is refused when it is
        /// sent (`SendOutcome.refused(_:)`), never queued: far below a queue's byte limit and
        /// a request's, so that one event can neither evict the queue nor block a batch.
        public var maxEventBytes: Int

        /// The default ``maxEventBytes``: 64 KiB, some thirty times a typical event with the
        /// default processors' parameters.
        public static let defaultMaxEventBytes = 64 * 1024

        public init(
            appID: String,
            salt: String = "",
            preStartBufferLimit: Int = 1000,
            shutdownTimeout: TimeInterval = 5,
            maxEventBytes: Int = Configuration.defaultMaxEventBytes
        ) {
            self.appID = appID
            self.salt = salt
            self.preStartBufferLimit = preStartBufferLimit
            self.shutdownTimeout = shutdownTimeout
            self.maxEventBytes = max(1, maxEventBytes)
        }
    }

    public let configuration: Configuration
    public let processors: [any EventProcessor]
    public let destinations: [Destination]
    public let storage: any ProcessorStorage
    public let logger: any Logging
    public let clock: any TelemetryClock
    /// Lifecycle signals for processors (sessions, durations); drive it on servers and in tests.
    public let lifecycle: AppLifecycle

    let pipeline: ProcessorPipeline
    /// Opt-out switch, running durations, navigation history (see `ClientFeatures`).
    let features: ClientFeatures
    private let afterProcessors: [any EventTransformation]
    let dispatchers: [Dispatcher]  // internal for TelemetryClient+OptOut.swift
    let intake: Intake  // internal for TelemetryClient+Erase.swift
    /// The processors that read the sender's context when an event is sent (see `currentSeed`).
    private let callSiteCapturers: [any CallSiteCapturing]
    let runtime = Locked(RuntimeState())  // internal for TelemetryClient+Conditions.swift
    /// Refused events, logged once per name.
    private let refusals = RefusalLog()
    /// See ``backgroundTasks`` (BackgroundTask+Run.swift).
    let backgroundTaskProvider = Locked<(any BackgroundTaskProviding)?>(nil)

    struct RuntimeState {
        var seed = ContextSeed.empty
        var phase: Phase = .created
        var consumer: Task<Void, Never>?
        /// Consumes the followed ``DeliveryConditionsSource`` until shutdown.
        var conditionsFollower: Task<Void, Never>?
    }

    enum Phase {
        case created, starting, running, stopped
    }

    public init(
        configuration: Configuration,
        processors: [any EventProcessor] = [],
        destinations: [Destination],
        transformations: [any EventTransformation] = [],
        storage: any ProcessorStorage,
        logger: any Logging = StandardErrorLogger(),
        clock: any TelemetryClock = SystemClock(),
        lifecycle: AppLifecycle = AppLifecycle(),
        observer: (@Sendable (DeliveryReport) -> Void)? = nil
    ) {
        self.configuration = configuration
        self.processors = processors
        self.storage = storage
        self.logger = logger
        self.clock = clock
        self.lifecycle = lifecycle
        self.features = ClientFeatures(storage: storage, clock: clock, lifecycle: lifecycle, logger: logger)
        var seen = Set<String>()
        var unique: [Destination] = []
        for destination in destinations {
            if seen.insert(destination.id).inserted {
                unique.append(destination)
            } else {
                logger.log(.error, "duplicate destination id '\(destination.id)': only the first one is used")
            }
        }
        self.destinations = unique
        self.pipeline = ProcessorPipeline(
            processors: processors,
            finalizer: EventFinalizer(appID: configuration.appID, salt: configuration.salt, logger: logger),
            logger: logger
        )
        self.afterProcessors = transformations.ordered(for: nil)
        self.dispatchers = unique.map { destination in
            Dispatcher(
                destination: destination,
                transformations: (transformations
                    + destination.transformations.map {
                        DestinationScoped(base: $0, destinationID: destination.id)
                    }).ordered(for: destination.id),
                clock: clock,
                logger: logger,
                observer: observer
            )
        }
        // A take is at most 512 events (enough for a durable cache's group commit), or fewer
        // when a destination's overflow bound is smaller, and no group spans two takes, so
        // that a group held in memory never pushes out its own events and `send` can report
        // them held.
        self.intake = Intake(
            preStartLimit: configuration.preStartBufferLimit,
            takeLimit: unique.reduce(512) { min($0, $1.policy.overflowLimit) }
        )
        // Found once, so that an event asks only these processors.
        self.callSiteCapturers = processors.compactMap { $0 as? any CallSiteCapturing }
    }

    deinit {
        runtime.withLock { state in
            state.consumer?.cancel()
            state.conditionsFollower?.cancel()
        }
    }

    // MARK: Lifecycle

    /// Starts the processors (in order), replays events sent before, and starts delivery.
    /// Calling it again does nothing.
    public func start() async {
        let proceed = runtime.withLock { state -> Bool in
            guard state.phase == .created else { return false }
            state.phase = .starting
            return true
        }
        guard proceed else { return }
        // Opt-out: read the persisted switch before anything buffered is processed.
        await features.start()
        let emitter = self.emitter
        for case let processor as any AppLifecycleAware in processors {
            processor.attach(lifecycle: lifecycle, clock: clock)
        }
        for processor in processors {
            await processor.start(storage: storage, logger: logger, emitter: emitter)
        }
        // What the processors stored as they started (the install id, the session counters) is
        // on disk before any event of this launch can be delivered: a debounced storage would
        // otherwise lose it to a program that ends a moment after launch, making every run of a
        // command-line tool a new install with a new user. (Each processor's `start` returns with
        // its state set in the storage.)
        await storage.flush()
        let consumer = Task { [intake, weak self] in
            // The append of the last group, still committing while the next items are
            // processed (see `process(_:after:)`).
            var inFlight: GroupAppend?
            while true {
                let items: [Intake.Item]?
                if inFlight != nil, let more = intake.nextKeepingTurn() {
                    items = more
                } else {
                    await inFlight?.task.value
                    inFlight = nil
                    items = await intake.next()
                }
                // Consumed, so that `process` owns the only reference to the take's storage.
                guard let items = consume items else { return }
                guard let self else {
                    Intake.resumeAll(items, with: .droppedAfterShutdown)
                    return
                }
                inFlight = await self.process(consume items, after: inFlight)
            }
        }
        runtime.withLock { state in
            state.consumer = consumer
            state.phase = .running
        }
        let dropped = intake.start()
        if dropped > 0 {
            logger.log(.warning, "\(dropped) event(s) sent before start were dropped: the pre-start buffer was full")
        }
        for dispatcher in dispatchers {
            await dispatcher.startTimer()
        }
        reactToLifecycle()  // persist and flush on background/terminate (TelemetryClient+Lifecycle.swift)
    }

    /// Stops the processors and delivers what is queued: one attempt, then retries after each
    /// backoff that ends within `configuration.shutdownTimeout` seconds. What is not delivered
    /// stays queued for the next launch. Events sent afterwards are dropped.
    public func shutdown() async {
        let wasRunning = runtime.withLock { state -> Bool in
            let running = state.phase == .running
            state.phase = .stopped
            return running
        }
        guard wasRunning else { return }
        // Events the processors have yet to emit (a `Session.started` a moment ago) are
        // sent before the intake closes, not dropped by it.
        for case let settling as any IdleAwaitable in processors {
            await settling.waitUntilIdle()
        }
        await intake.barrier()
        intake.close()
        for dispatcher in dispatchers {
            await dispatcher.stopTimer()
        }
        runtime.withLock { $0.conditionsFollower?.cancel() }
        for processor in processors.reversed() {
            await processor.stop()
        }
        await features.stop()
        await storage.flush()
        // One retry loop: each dispatcher's flush, retried until the deadline (wall time).
        let deadline = SystemClock().now.addingTimeInterval(configuration.shutdownTimeout)
        let left = await withTaskGroup(of: (Int, Dispatcher.Remaining).self) { group in
            for (index, dispatcher) in dispatchers.enumerated() {
                group.addTask { (index, await dispatcher.flush(deadline: deadline, retrying: true)) }
            }
            var left = [Dispatcher.Remaining](repeating: .init(), count: dispatchers.count)
            for await (index, entry) in group { left[index] = entry }
            return left
        }
        var remaining = 0
        for (dispatcher, entry) in zip(dispatchers, left) {
            remaining += entry.queued
            if entry.heldInMemory > 0 {
                logger.log(
                    .error,
                    "shutdown: destination '\(dispatcher.id)': \(entry.heldInMemory) event(s) are only in memory "
                        + "because its cache fails; they are lost when the process ends"
                )
            }
        }
        if remaining > 0 {
            logger.log(.warning, "shutdown: \(remaining) event(s) stay queued for the next launch")
        }
        lifecycle.send(.willTerminate)
    }

    // MARK: Sending

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

    var isRunning: Bool { runtime.withLock { $0.phase == .running } }  // for TelemetryClient+Lifecycle.swift

    /// What processors send their own events through (`start`; again in TelemetryClient+Erase.swift).
    var emitter: any EventSending { Emitter(client: self) }

    /// Items queued for the intake's consumer: what tests wait for to know that a send or a
    /// barrier is queued behind the item being processed, and what the facade reports lost
    /// when the process exits before they were cached.
    package var queuedItemCount: Int { intake.pendingCount }

    /// Waits until every event sent so far went through the pipeline and into the caches.
    public func waitUntilProcessed() async {
        guard runtime.withLock({ $0.phase == .running }) else { return }
        await intake.barrier()
    }

    // MARK: State

    /// Sets the user identifier of later events (`nil` clears it). A per-event
    /// `customUserID` still wins where the user-identifier processor runs.
    public func setUserIdentifier(_ identifier: String?) {
        runtime.withLock { state in
            state.seed = ContextSeed(userIdentifier: identifier, defaultParameters: state.seed.defaultParameters)
        }
    }

    /// The client-level context of an event sent now, on the sender's task: the seed in
    /// effect, plus what the `CallSiteCapturing` processors read there (a trace's ids).
    private var currentSeed: ContextSeed {
        let seed = runtime.withLock { $0.seed }
        guard !callSiteCapturers.isEmpty else { return seed }
        var captured: [String: PayloadValue] = [:]
        for capturer in callSiteCapturers {
            if let metadata = capturer.captureCallSite() {
                captured.merge(metadata) { _, later in later }
            }
        }
        guard !captured.isEmpty else { return seed }
        return ContextSeed(
            userIdentifier: seed.userIdentifier,
            defaultParameters: seed.defaultParameters.merging(captured) { _, callSite in callSite }
        )
    }

    /// Adds a parameter to every later event (`nil` removes it). Event parameters win.
    public func setDefaultParameter(_ key: String, value: (any ParameterValue)?) {
        runtime.withLock { state in
            var parameters = state.seed.defaultParameters
            if let value {
                parameters[key] = value.payloadValue
            } else {
                parameters.removeValue(forKey: key)
            }
            state.seed = ContextSeed(userIdentifier: state.seed.userIdentifier, defaultParameters: parameters)
        }
    }

    /// Starts a new session (through the session-tracking processor, if present).
    public func newSession() {
        lifecycle.send(.newSessionRequested)
    }

    /// The running durations (`DurationTracking`): persisted in ``storage``, background
    /// time excluded unless asked. `TelemetryKitPresets` adds `startDurationEvent` and
    /// `stopAndSendDurationEvent` on top.
    public var durations: DurationTracker { features.durations }

    /// The last navigation destination, for `navigationPathChanged(to:)` (TelemetryKitPresets).
    package var navigationHistory: NavigationHistory { features.navigation }

    /// The first processor that provides `capability`, e.g. `(any SessionManaging).self`.
    ///
    /// ```swift
    /// let testMode = await client.processor(conformingTo: (any TestModeProviding).self)?.isTestMode() ?? false
    /// ```
    public func processor<Capability>(conformingTo capability: Capability.Type) -> Capability? {
        for processor in processors {
            if let match = processor as? Capability { return match }
        }
        return nil
    }

    /// The client's counters.
    public var stats: TelemetryStats {
        get async {
            var stats = intake.counters()
            for dispatcher in dispatchers {
                stats.destinations[dispatcher.id] = await dispatcher.snapshot()
            }
            return stats
        }
    }

    /// Delivery state of one destination: queued events, last success, current backoff.
    public func deliveryStatus(of destinationID: String) async -> DeliveryStatus? {
        guard let dispatcher = dispatchers.first(where: { $0.id == destinationID }) else { return nil }
        return await dispatcher.status()
    }

    // MARK: Processing

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
    private func process(
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
    private struct GroupAppend: Sendable {
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
    nonisolated(nonsending) private func processInline(
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

/// Delivery state of one destination.
public struct DeliveryStatus: Sendable, Hashable {
    public var destinationID: String
    /// Events in the destination's cache.
    public var queued: Int
    /// Events waiting in memory because the cache fails (see ``DeliveryPolicy/overflowLimit``).
    public var heldInMemory: Int
    public var lastSuccess: Date?
    /// The delay chosen after the last failure; nil when not backing off.
    public var currentBackoff: Double?
    public var nextAttempt: Date?
    /// The network and power conditions the destination last heard of (see
    /// ``TelemetryClient/follow(_:)``): offline explains a queue that does not move.
    public var conditions: DeliveryConditions
}

/// The emitter handed to processors: enqueues without waiting.
private struct Emitter: EventSending {
    // Unowned would crash if a processor kept the emitter beyond the client; weak is safe.
    weak let client: TelemetryClient?

    func send(_ input: EventInput) async {
        client?.event(input)
    }
}

/// A destination's own transformation, whatever scope it declares.
private struct DestinationScoped: EventTransformation {
    let base: any EventTransformation
    let destinationID: String

    var id: String { base.id }
    var order: Int { base.order }
    var scope: TransformationScope { .destinations([destinationID]) }

    nonisolated(nonsending) func transform(_ event: consuming Event, destination: String?) async -> Event? {
        await base.transform(event, destination: destination)
    }
}
