public import TelemetryKit
import TelemetryKitSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Holds events back until the user decides on consent, and tags events with the purposes
/// they need so that each destination gets only what the user allowed.
///
/// - **undecided**: events wait in a bounded queue (oldest dropped and counted beyond
///   `queueLimit`), persisted in `ProcessorStorage`, so they survive a restart.
/// - **granted** (``grant(_:)``): the queue is released in order, and no later event
///   overtakes the released ones. Events then flow.
/// - **denied** (``deny()``): the queue is cleared and new events are dropped.
///
/// Purposes: each event needs the purposes of `purposesByEvent[name]` (else
/// `defaultPurposes`); each destination may require purposes too. A destination only
/// receives events whose purposes are all granted: add ``destinationFilter(requiring:)``
/// to every destination.
///
/// ```swift
/// let consent = ConsentProcessor(purposesByEvent: ["Campaign.opened": [.marketing]])
/// let client = TelemetryClient(
///     configuration: .init(appID: "APP-ID"),
///     processors: [consent] + Telemetry.defaultProcessors(),
///     destinations: [
///         Destination(id: "ingest", transmitter: ingest, transformations: [consent.destinationFilter()]),
///         Destination(id: "ads", transmitter: ads, transformations: [consent.destinationFilter(requiring: [.marketing])]),
///     ],
///     storage: storage
/// )
/// await consent.grant([.analytics])   // the user tapped "Allow analytics"
/// ```
///
/// Place it **first** in the pipeline: released events are sent again through the
/// client's emitter and run the whole pipeline, so processors before this one would see
/// them twice. They keep their timestamp; the client state (user identifier, runtime
/// default parameters) and session are those at release time. While waiting, events count
/// as filtered in the client's stats; released events count as processed again.
public final class ConsentProcessor: SynchronousEventProcessor {
    /// The most events the consent queue keeps; the oldest are dropped beyond it.
    public let queueLimit: Int
    /// The purposes of events by exact name.
    public let purposesByEvent: [String: Set<ConsentPurpose>]
    /// The purposes of events not in `purposesByEvent`.
    public let defaultPurposes: Set<ConsentPurpose>

    /// Payload tags, computed once as ready-made metadata: event name → purposes tag.
    private let tagsByEvent: [String: EventParameters]
    private let defaultTag: EventParameters?

    private struct InFlight: Sendable {
        let sequence: Int
        let input: EventInput
    }

    private struct State {
        var decision: ConsentState = .undecided
        var granted: Set<ConsentPurpose> = []
        var decidedBeforeStart = false
        /// Waiting for a decision (undecided), oldest first.
        var queue: [EventInput] = []
        /// Re-emitted and not yet back, oldest first.
        var inFlight: [InFlight] = []
        /// Tagged events to re-emit, in order.
        var outbox: [EventInput] = []
        var nextSequence = 0
        var droppedFromQueue = 0
        var overflowReported = false
        var writeScheduled = false
        var emitter: (any EventSending)?
        var storage: (any ProcessorStorage)?
        var logger: any Logging = StandardErrorLogger()
    }

    private let state = Locked(State())
    private let emissions = SerialTaskQueue()
    private let writes = SerialTaskQueue()

    /// Creates the processor.
    ///
    /// - Parameters:
    ///   - queueLimit: how many events wait at most while consent is undecided (default 1,000).
    ///   - purposesByEvent: the purposes events need, by exact event name.
    ///   - defaultPurposes: the purposes of every other event (default none: only the
    ///     destinations' own requirements apply).
    public init(
        queueLimit: Int = 1000,
        purposesByEvent: [String: Set<ConsentPurpose>] = [:],
        defaultPurposes: Set<ConsentPurpose> = []
    ) {
        self.queueLimit = max(0, queueLimit)
        self.purposesByEvent = purposesByEvent
        self.defaultPurposes = defaultPurposes
        self.tagsByEvent = purposesByEvent.compactMapValues(Self.tagParameters(for:))
        self.defaultTag = Self.tagParameters(for: defaultPurposes)
    }

    // MARK: Decisions

    /// The current decision.
    public var consentState: ConsentState { state.withLock { $0.decision } }

    /// The purposes granted so far.
    public var grantedPurposes: Set<ConsentPurpose> { state.withLock { $0.granted } }

    /// Events waiting for a decision.
    public var queuedCount: Int { state.withLock { $0.queue.count } }

    /// Events dropped from the full consent queue (oldest first).
    public var droppedFromQueueCount: Int { state.withLock { $0.droppedFromQueue } }

    /// Grants consent (adding `purposes` to those granted) and releases the waiting events in
    /// order. Returns once they are queued in the client again and the decision is on disk.
    /// Before the client started, they are released (and the decision saved) at start.
    public func grant(_ purposes: Set<ConsentPurpose> = []) async {
        state.withLock { state in
            state.decision = .granted
            state.granted.formUnion(purposes)
            if state.storage == nil { state.decidedBeforeStart = true }
            Self.release(&state)
        }
        persist()
        await emitPending()
        await saveDecision()
    }

    /// Withdraws `purposes`; overall consent stays as it is. Returns once that is on disk.
    public func revoke(_ purposes: Set<ConsentPurpose>) async {
        state.withLock { state in
            state.granted.subtract(purposes)
            if state.storage == nil { state.decidedBeforeStart = true }
        }
        persist()
        await saveDecision()
    }

    /// Denies consent: the waiting events are dropped, and so is every later event. Returns once
    /// the decision is on disk.
    public func deny() async {
        state.withLock { state in
            state.decision = .denied
            state.granted = []
            state.queue = []
            state.inFlight = []
            state.outbox = []
            if state.storage == nil { state.decidedBeforeStart = true }
        }
        persist()
        await saveDecision()
    }

    /// Waits for the writes queued so far and flushes the storage: a decision the user made is
    /// not lost to a program that exits right after it (a debounced storage writes later).
    private func saveDecision() async {
        await writes.drain()
        await state.withLock { $0.storage }?.flush()
    }

    /// A transformation for a destination that lets through only events whose purposes,
    /// and `purposes` (the destination's own requirements), are all granted.
    ///
    /// - Parameters:
    ///   - purposes: what this destination needs for every event, e.g. `[.marketing]`.
    ///   - scope: where it runs when passed to the client; ignored (taken as the
    ///     destination) when passed in `Destination(transformations:)`.
    public func destinationFilter(
        requiring purposes: Set<ConsentPurpose> = [],
        scope: TransformationScope = .allDestinations
    ) -> ConsentDestinationFilter {
        ConsentDestinationFilter(
            processor: self,
            requiredPurposes: purposes,
            id: "consent",
            order: Int.min,
            scope: scope
        )
    }

    /// Whether an event needing `purposes` may be sent now.
    func allows(_ purposes: Set<ConsentPurpose>) -> Bool {
        state.withLock { state in
            state.decision == .granted && purposes.isSubset(of: state.granted)
        }
    }

    /// Waits until every event released or held back so far is queued in the client again.
    public func waitUntilReleased() async {
        await emissions.drain()
    }

    /// Waits until the state so far is written to storage.
    public func waitUntilPersisted() async {
        await writes.drain()
    }

    // MARK: EventProcessor

    public func start(storage: any ProcessorStorage, logger: any Logging, emitter: any EventSending) async {
        var persisted = Persisted()
        if let data = await storage.data(forKey: Keys.storage) {
            do {
                persisted = try JSONDecoder().decode(Persisted.self, from: data)
            } catch {
                logger.log(.warning, "consent: the saved consent state could not be read and was reset: \(error)")
            }
        }
        state.withLock { state in
            state.storage = storage
            state.logger = logger
            state.emitter = emitter
            if !state.decidedBeforeStart {
                state.decision = persisted.decision
                state.granted = Set(persisted.granted)
            }
            switch state.decision {
            case .undecided:
                state.queue = Array(persisted.events.suffix(queueLimit)) + state.queue
            case .granted:
                state.queue = persisted.events + state.queue
                Self.release(&state)
            case .denied:
                state.queue = []
            }
        }
        persist()
        // In the storage when `start` returns (a decision made before it included), so the
        // client's write after the processors' start puts it on disk.
        await writes.drain()
        await emitPending()
    }

    public func stop() async {
        await emissions.drain()
        persist()
        await writes.drain()
        // Written: forget it, so that a later `start` (after the app erased its data) begins
        // from what the storage holds then, not from this run's decision and held events.
        state.withLock { $0 = State() }
    }

    public func process(_ input: inout EventInput, context: inout EventContext) throws {
        let exactSequence = input.parameters.removeValue(forKey: Keys.releaseSequence).flatMap(Self.sequence(of:))
        let (action, log) = state.withLock { state -> (Action, String?) in
            var sequence = exactSequence
            // A processor placed before this one may have prefixed the tag; only look for
            // that while re-emitted events are on their way (never on the common path).
            if sequence == nil, !state.inFlight.isEmpty {
                sequence = Self.removePrefixedSequenceTag(from: &input)
            }
            return Self.decide(input, sequence: sequence, limit: queueLimit, &state)
        }
        if let log { state.withLock { $0.logger }.log(.warning, log) }
        switch action {
        case .pass:
            if let tag = tagsByEvent[input.name] ?? defaultTag {
                context.addParameters(tag)
            }
        case .drop:
            throw ProcessorError.eventFiltered
        case .queued:
            persist()
            throw ProcessorError.eventFiltered
        case .deferred:
            persist()
            emissions.enqueue { [weak self] in await self?.emitOutbox() }
            throw ProcessorError.eventFiltered
        }
    }

    // MARK: Queue

    private enum Action {
        case pass, drop, queued, deferred
    }

    private static func decide(
        _ input: EventInput,
        sequence: Int?,
        limit: Int,
        _ state: inout State
    ) -> (Action, String?) {
        if let sequence {
            // Back from the emitter. Earlier sequences that never came back were lost
            // (dropped by the client); forget them so later events stop waiting for them.
            state.inFlight.removeAll { $0.sequence <= sequence }
            return (state.decision == .granted ? .pass : .drop, nil)
        }
        switch state.decision {
        case .denied:
            return (.drop, nil)
        case .undecided:
            state.queue.append(input)
            var message: String?
            if state.queue.count > limit {
                let overflow = state.queue.count - limit
                state.queue.removeFirst(overflow)
                state.droppedFromQueue += overflow
                if !state.overflowReported {
                    state.overflowReported = true
                    message = "consent: the consent queue is full (\(limit)); the oldest waiting events are dropped"
                }
            }
            return (.queued, message)
        case .granted:
            guard !state.inFlight.isEmpty else { return (.pass, nil) }
            // Released events are still on their way: go behind them.
            enqueueForEmission(input, &state)
            return (.deferred, nil)
        }
    }

    /// Moves the waiting events to the outbox, in order.
    private static func release(_ state: inout State) {
        let waiting = state.queue
        state.queue = []
        state.overflowReported = false
        for input in waiting {
            enqueueForEmission(input, &state)
        }
    }

    private static func enqueueForEmission(_ input: EventInput, _ state: inout State) {
        state.nextSequence += 1
        state.inFlight.append(InFlight(sequence: state.nextSequence, input: input))
        var tagged = input
        tagged.parameters.set(Keys.releaseSequence, state.nextSequence)
        state.outbox.append(tagged)
    }

    /// Emits the outbox; returns once everything queued for emission so far is emitted.
    private func emitPending() async {
        await emissions.run { [weak self] in await self?.emitOutbox() }
    }

    /// Sends the outbox through the emitter, oldest first. Runs on one chain, so emissions
    /// never interleave.
    private func emitOutbox() async {
        while true {
            let next = state.withLock { state -> (EventInput, any EventSending)? in
                guard let emitter = state.emitter, !state.outbox.isEmpty else { return nil }
                return (state.outbox.removeFirst(), emitter)
            }
            guard let (input, emitter) = next else { return }
            await emitter.send(input)
        }
    }

    /// Removes a re-emission tag whose key a processor before this one prefixed.
    private static func removePrefixedSequenceTag(from input: inout EventInput) -> Int? {
        guard let key = input.parameters.keys.first(where: { $0.hasSuffix(Keys.releaseSequence) }) else { return nil }
        return input.parameters.removeValue(forKey: key).flatMap(sequence(of:))
    }

    private static func sequence(of value: PayloadValue) -> Int? {
        guard case .int(let number) = value else { return nil }
        return Int(exactly: number)
    }

    // MARK: Tags

    /// The payload tag for `purposes`: sorted raw values joined by commas; nil for none.
    public static func tag(for purposes: Set<ConsentPurpose>) -> String? {
        purposes.isEmpty ? nil : purposes.sorted().map(\.rawValue).joined(separator: ",")
    }

    private static func tagParameters(for purposes: Set<ConsentPurpose>) -> EventParameters? {
        tag(for: purposes).map { [Keys.purposes: $0] }
    }

    /// The purposes in a payload tag made by ``tag(for:)``.
    public static func purposes(fromTag tag: String) -> Set<ConsentPurpose> {
        Set(tag.split(separator: ",").map { ConsentPurpose(rawValue: String($0)) })
    }

    // MARK: Persistence

    private struct Persisted: Codable {
        var decision: ConsentState = .undecided
        var granted: [ConsentPurpose] = []
        /// Events not passed on yet: re-emitted ones first, then the waiting ones.
        var events: [EventInput] = []
    }

    /// Writes the newest state; writes run in order, and a burst of changes writes once.
    private func persist() {
        let schedule = state.withLock { state -> Bool in
            guard state.storage != nil, !state.writeScheduled else { return false }
            state.writeScheduled = true
            return true
        }
        guard schedule else { return }
        writes.enqueue { [weak self] in
            guard let self else { return }
            let (snapshot, storage, logger) = self.state.withLock { state in
                state.writeScheduled = false
                return (
                    Persisted(
                        decision: state.decision,
                        granted: state.granted.sorted(),
                        events: state.inFlight.map(\.input) + state.queue
                    ),
                    state.storage,
                    state.logger
                )
            }
            guard let storage else { return }
            do {
                await storage.set(try JSONEncoder().encode(snapshot), forKey: Keys.storage)
            } catch {
                logger.log(.error, "consent: the consent state could not be saved: \(error)")
            }
        }
    }
}
