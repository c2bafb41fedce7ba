#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The app-wide entry point: one `TelemetryClient` set up with the default plugins.
///
/// ```swift
/// try await Telemetry.initialize(
///     configuration: Telemetry.Config(appID: "APP-ID", namespace: "my-namespace"),
///     processors: Telemetry.defaultProcessors() + [ABTestProcessor(variant: "B")]
/// )
/// Telemetry.signal("Screen.shown", parameters: ["screen": "home"])   // returns at once
/// await Telemetry.event("Checkout.completed", parameters: ["items": 3])  // returns once cached
/// await Telemetry.flush()
/// ```
///
/// Events sent before `initialize` are kept (up to 1,000, oldest dropped) and delivered in
/// order, with their original timestamps, once it finishes.
///
/// Two verbs, so the compiler never has to choose:
/// - `await Telemetry.event(...)` returns once the event is in the cache (async only);
/// - `Telemetry.signal(...)` returns at once (fire-and-forget, usable from synchronous code).
///
/// A synchronous overload named `event` next to the async one would be a trap: in top-level
/// code Swift resolves `await Telemetry.event(...)` to the synchronous overload (with only a
/// warning), so the call would silently not wait. With distinct names it cannot happen.
public enum Telemetry {
    private enum State {
        case waiting(BoundedBuffer<Pending>)
        case initializing(BoundedBuffer<Pending>)
        case running(TelemetryClient)
    }

    private struct Pending: Sendable {
        let input: EventInput
        let continuation: CheckedContinuation<Void, Never>?
    }

    /// How many events sent before `initialize` are kept.
    public static let preInitializeBufferLimit = 1000

    private static let state = Locked(State.waiting(BoundedBuffer(capacity: preInitializeBufferLimit)))
    private static let droppedBeforeInitialize = Locked(0)

    // MARK: Setup

    /// Sets up the SDK. A second call while running is ignored with a warning.
    ///
    /// - Parameters:
    ///   - configuration: the app's settings (validated: blank `appID`/`namespace` throw).
    ///   - processors: the pipeline; `nil` means `defaultProcessors(for: configuration)`.
    ///   - cache: the queue of the default destination; default: the durable cache in the
    ///     data directory.
    ///   - transmitter: the default destination's transmitter; default: HTTP ingest.
    ///   - logger: diagnostics; default: warnings and errors to standard error.
    ///   - storage: processor storage; default: the persistent store in the data directory.
    ///   - destinations: extra destinations, each with its own cache, policy and transformations.
    ///   - transformations: transformations of any scope.
    public static func initialize(
        configuration: Config,
        processors: [any EventProcessor]? = nil,
        cache: (any EventCaching)? = nil,
        transmitter: (any EventTransmitting)? = nil,
        logger: any Logging = StandardErrorLogger(),
        storage: (any ProcessorStorage)? = nil,
        destinations: [Destination] = [],
        transformations: [any EventTransformation] = [],
        clock: any TelemetryClock = SystemClock()
    ) async throws {
        try configuration.validate()
        let claimed = state.withLock { state -> Bool in
            guard case .waiting(let buffer) = state else { return false }
            state = .initializing(buffer)
            return true
        }
        guard claimed else {
            logger.log(.warning, "Telemetry.initialize was called again; the second call is ignored")
            return
        }
        let client: TelemetryClient
        do {
            client = try makeClient(
                configuration: configuration,
                processors: processors,
                cache: cache,
                transmitter: transmitter,
                logger: logger,
                storage: storage,
                destinations: destinations,
                transformations: transformations,
                clock: clock
            )
        } catch {
            state.withLock { state in
                if case .initializing(let buffer) = state { state = .waiting(buffer) }
            }
            throw error
        }
        // Replay under the lock, so that events sent meanwhile queue up behind the buffer.
        let awaiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            guard case .initializing(var buffer) = state else { return [] }
            let pending = buffer.removeAll()
            droppedBeforeInitialize.withLock { $0 += buffer.droppedCount }
            for item in pending {
                client.event(item.input)
            }
            state = .running(client)
            return pending.compactMap(\.continuation)
        }
        let dropped = droppedBeforeInitialize.current
        if dropped > 0 {
            logger.log(.warning, "\(dropped) event(s) sent before initialize were dropped: the buffer was full")
        }
        // Opt-out: a choice made before initialize applies before the buffered events are processed.
        await applyAnalyticsChoiceBeforeStart(to: client)
        await prepareStart(of: client)  // TelemetryDeck import and lifecycle source (Telemetry+Startup.swift)
        await client.start()
        if !awaiting.isEmpty {
            await client.waitUntilProcessed()
            for continuation in awaiting { continuation.resume() }
        }
    }

    /// Stops the SDK: processors stop, queued events are sent (with a deadline), and a
    /// later `initialize` starts afresh.
    public static func terminate() async {
        let client = state.withLock { state -> TelemetryClient? in
            guard case .running(let client) = state else { return nil }
            state = .waiting(BoundedBuffer(capacity: preInitializeBufferLimit))
            return client
        }
        droppedBeforeInitialize.set(0)
        await client?.shutdown()
    }

    /// The running client, if `initialize` finished.
    public static var client: TelemetryClient? {
        state.withLock { state in
            if case .running(let client) = state { return client }
            return nil
        }
    }

    // MARK: Events

    /// Sends an event and returns at once (fire-and-forget). Events are processed in call order.
    ///
    /// Use it from synchronous code (button actions, delegates); in async code prefer
    /// `await Telemetry.event(...)`, which also waits until the event is cached.
    public static func signal(
        _ name: String,
        parameters: EventParameters = [:],
        floatValue: Double? = nil,
        customUserID: String? = nil
    ) {
        submit(EventInput(name, parameters: parameters, floatValue: floatValue, customUserID: customUserID), nil)
    }

    /// Sends an event and returns once it is in the cache of every destination.
    ///
    /// Before `initialize`, waits until initialization has replayed it.
    public static func event(
        _ name: String,
        parameters: EventParameters = [:],
        floatValue: Double? = nil,
        customUserID: String? = nil
    ) async {
        await send(EventInput(name, parameters: parameters, floatValue: floatValue, customUserID: customUserID))
    }

    /// Sends a prepared input and returns at once (fire-and-forget).
    public static func signal(_ input: EventInput) {
        submit(input, nil)
    }

    /// Sends a prepared input and returns once it is cached.
    public static func send(_ input: EventInput) async {
        if let client {
            await client.send(input)
            return
        }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            submit(input, continuation)
        }
    }

    private static func submit(_ input: EventInput, _ continuation: CheckedContinuation<Void, Never>?) {
        if client == nil, dropsBeforeInitialize(continuation) { return }  // opt-out before initialize
        enum Route {
            case client(TelemetryClient)
            case buffered
            case dropped(Pending)
        }
        let route = state.withLock { state -> Route in
            switch state {
            case .running(let client):
                return .client(client)
            case .waiting(var buffer):
                let dropped = buffer.append(Pending(input: input, continuation: continuation))
                state = .waiting(buffer)
                return dropped.map(Route.dropped) ?? .buffered
            case .initializing(var buffer):
                let dropped = buffer.append(Pending(input: input, continuation: continuation))
                state = .initializing(buffer)
                return dropped.map(Route.dropped) ?? .buffered
            }
        }
        switch route {
        case .client(let client):
            // Enqueue synchronously so order is kept; only the wait runs in a task.
            client.event(input)
            if let continuation {
                Task {
                    await client.waitUntilProcessed()
                    continuation.resume()
                }
            }
        case .buffered:
            break
        case .dropped(let pending):
            pending.continuation?.resume()
        }
    }

    /// Opt-out before initialize: drops the events buffered so far and returns how many.
    static func discardBufferedEvents() -> Int {
        let discarded = state.withLock { state -> [Pending] in
            switch state {
            case .waiting(var buffer):
                defer { state = .waiting(buffer) }
                return buffer.removeAll()
            case .initializing(var buffer):
                defer { state = .initializing(buffer) }
                return buffer.removeAll()
            case .running:
                return []
            }
        }
        for pending in discarded { pending.continuation?.resume() }
        return discarded.count
    }

    /// Delivers everything queued now (see `TelemetryClient.flush()`).
    @discardableResult
    public static func flush() async -> FlushResult {
        guard let client else { return .complete }
        return await client.flush()
    }

    /// Sets the user identifier of later events (`nil` clears it).
    public static func setUserIdentifier(_ identifier: String?) {
        client?.setUserIdentifier(identifier)
    }

    /// Starts a new session.
    public static func newSession() {
        client?.newSession()
    }

    /// The running client's counters, with events dropped before `initialize` included.
    public static var stats: TelemetryStats {
        get async {
            var stats = await client?.stats ?? TelemetryStats()
            stats.droppedBeforeStart += droppedBeforeInitialize.current
            return stats
        }
    }

    /// Events dropped so far because more than `preInitializeBufferLimit` were sent before
    /// `initialize`.
    public static var droppedBeforeInitializeCount: Int {
        let pendingDrops = state.withLock { state -> Int in
            switch state {
            case .waiting(let buffer), .initializing(let buffer): return buffer.droppedCount
            case .running: return 0
            }
        }
        return droppedBeforeInitialize.current + pendingDrops
    }
}
