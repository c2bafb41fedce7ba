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
    let afterProcessors: [any EventTransformation]
    let dispatchers: [Dispatcher]  // internal for TelemetryClient+OptOut.swift
    let intake: Intake  // internal for TelemetryClient+Erase.swift
    /// The processors that read the sender's context when an event is sent (see `currentSeed`).
    private let callSiteCapturers: [any CallSiteCapturing]
    let runtime = Locked(RuntimeState())  // internal for TelemetryClient+Conditions.swift
    /// Refused events, logged once per name.
    let refusals = RefusalLog()
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

    var isRunning: Bool { runtime.withLock { $0.phase == .running } }  // for TelemetryClient+Lifecycle.swift

    /// What processors send their own events through (`start`; again in TelemetryClient+Erase.swift).
    var emitter: any EventSending { Emitter(client: self) }

    /// Items queued for the intake's consumer: what tests wait for to know that a send or a
    /// barrier is queued behind the item being processed, and what the facade reports lost
    /// when the process exits before they were cached.
    package var queuedItemCount: Int { intake.pendingCount }

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
    var currentSeed: ContextSeed {
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
