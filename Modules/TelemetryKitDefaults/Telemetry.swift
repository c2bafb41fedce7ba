import TelemetryKitSupport

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The app-wide entry point: one `TelemetryClient` set up with the default plugins.
///
/// Its calls are TelemetryDeck v3's, so an app written for v3 compiles after renaming
/// `TelemetryDeck` to `Telemetry`:
///
/// ```swift
/// try await Telemetry.initialize(appID: "APP-ID", namespace: "my-namespace")
/// Telemetry.event("Screen.shown", parameters: ["screen": "home"])          // returns at once
/// await Telemetry.event("Checkout.completed", parameters: ["items": 3])     // returns once cached
/// await Telemetry.flush()
/// ```
///
/// Events sent before `initialize` (or after `terminate`) are buffered, up to
/// ``preInitializeBufferLimit`` (beyond that the oldest are dropped and counted in
/// ``droppedBeforeInitializeCount``), and delivered in order, with their original
/// timestamps, once `initialize` finishes: after the SDK's own first events
/// (`TelemetryDeck.Acquisition.newInstallDetected`, `TelemetryDeck.Session.started`);
/// `initialize` returns once they are all cached. An awaited `event` sent before returns as
/// soon as the event is buffered, so an app can await events and initialize later on the
/// same task.
///
/// `event` exists synchronously and asynchronously, as in v3. In asynchronous code Swift
/// picks the `async` one, which returns once the event is in the cache; `signal` is the
/// explicit fire-and-forget spelling. (In top-level code Swift prefers the synchronous
/// overload; there, `Telemetry.send(_:)` always waits.)
public enum Telemetry {
    /// How many events sent before `initialize` are kept.
    public static let preInitializeBufferLimit = 10_000

    /// The facade's one piece of state (FacadeState.swift).
    static let state = Locked(FacadeState())

    // MARK: Setup

    /// Sets up the SDK with TelemetryDeck v3's settings and the default processors.
    ///
    /// ```swift
    /// try await Telemetry.initialize(appID: "APP-ID", namespace: "my-namespace", defaultParameters: ["plan": "pro"])
    /// ```
    public static func initialize(
        appID: String,
        namespace: String,
        salt: String = "",
        defaultUser: String? = nil,
        testMode: Bool? = nil,
        eventPrefix: String? = nil,
        parameterPrefix: String? = nil,
        sendSessionStartedEvent: Bool = true,
        defaultParameters: EventParameters = [:]
    ) async throws(TelemetryError) {
        try await initialize(
            configuration: Config(
                appID: appID,
                namespace: namespace,
                salt: salt,
                testMode: testMode,
                defaultUser: defaultUser,
                eventPrefix: eventPrefix,
                parameterPrefix: parameterPrefix,
                defaultParameters: defaultParameters,
                sendSessionStartedEvent: sendSessionStartedEvent
            )
        )
    }

    /// Sets up the SDK. A second call while running is ignored with a warning.
    ///
    /// Every override is optional; `nil` means the default.
    ///
    /// On a device that has not been unlocked since it started (a background launch by a
    /// silent push or a background task), the protected data directory cannot be opened: then
    /// `initialize` returns without a client (``client`` stays nil), the events the app sends
    /// wait in memory, and the SDK starts when the device is unlocked (see
    /// ``ProtectedDataSource``).
    ///
    /// - Parameters:
    ///   - configuration: the app's settings (validated: blank `appID`/`namespace` throw).
    ///   - processors: the pipeline; `nil` means `defaultProcessors(for: configuration)`.
    ///   - cache: the queue of the default destination; default: the durable SQLite cache in
    ///     the data directory.
    ///   - transmitter: the default destination's transmitter; default: HTTP ingest.
    ///   - logger: diagnostics; default: warnings and errors to standard error.
    ///   - storage: processor storage; default: the persistent store in the data directory.
    ///   - destinations: extra destinations, each with its own cache, policy and transformations.
    ///   - transformations: transformations of any scope.
    ///   - clock: the clock of the client and its processors (tests pass a `ManualClock`).
    public static func initialize(
        configuration: Config,
        processors: [any EventProcessor]? = nil,
        cache: (any EventCaching)? = nil,
        transmitter: (any EventTransmitting)? = nil,
        logger: (any Logging)? = nil,
        storage: (any ProcessorStorage)? = nil,
        destinations: [Destination] = [],
        transformations: [any EventTransformation] = [],
        clock: any TelemetryClock = SystemClock()
    ) async throws(TelemetryError) {
        let logger = logger ?? StandardErrorLogger()
        try configuration.validate()
        // Tried again as it was called, when protected data becomes available (see below).
        let retry: @Sendable () async -> Void = {
            do {
                try await initialize(
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
                logger.log(.error, "Telemetry.initialize failed after the device was unlocked: \(error)")
            }
        }
        let running = state.withLock { state -> Config? in
            guard case .waiting = state.phase else { return state.configuration }
            state.phase = .initializing
            state.configuration = configuration
            return nil
        }
        if let running {
            // As v3: calling it again is harmless. With another destination or identity it
            // would silently keep sending as the first call said, so it says so.
            guard running.identity == configuration.identity else {
                throw TelemetryError(
                    .alreadyInitialized,
                    "Telemetry.initialize was called again with another app id, namespace, API base URL or salt "
                        + "while the SDK runs for app '\(running.appID)'; call Telemetry.terminate() first to switch"
                )
            }
            logger.log(.warning, "Telemetry.initialize was called again; the second call is ignored")
            return
        }
        let assembled: AssembledClient
        do {
            assembled = try await makeClient(
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
            state.withLock {
                $0.phase = .waiting
                $0.configuration = nil
            }
            // A locked device after a reboot: not an error; the events wait in the buffer.
            if await waitsForProtectedData(after: error, logger: logger, retry: retry) { return }
            throw error
        }
        stopWaitingForProtectedData()
        let client = assembled.client
        // `removeAllData()` before initialize: the data on disk goes before anything reads it.
        if state.withLock({ $0.erasesAtInitialize }) {
            do {
                try await erase(client)
                state.withLock { $0.erasesAtInitialize = false }
            } catch {
                logger.log(.error, error.message)
            }
        }
        // Opt-out: a choice made before initialize applies before anything is processed.
        let analyticsChoice = await applyAnalyticsChoiceBeforeStart(to: client)
        await prepareStart(of: client)  // TelemetryDeck import and lifecycle source (Telemetry+Startup.swift)
        // Start first: the processors' own first events (new install, session start) queue
        // up ahead of what the app sent before initialize. The default queue may still be
        // opening (their appends wait for it); what the app gathered before initialize is
        // handed over only once it is open, and stays for the next call if it cannot be.
        await client.start()
        do {
            try await assembled.defaultQueueOpened()
        } catch {
            await abandonStart(of: client, analyticsChoice: analyticsChoice)
            if await waitsForProtectedData(after: error, logger: logger, retry: retry) { return }
            throw error
        }
        // Replay under the lock, so that events sent meanwhile queue up behind the record.
        let (dropped, lateAnalyticsChoice) = state.withLock { state -> (Int, Bool?) in
            state.gathered.replay(into: client)
            state.phase = .running(client)
            defer { state.gathered = FacadeState.Gathered() }
            return (state.droppedBeforeInitialize, state.gathered.analyticsChoice)
        }
        if let lateAnalyticsChoice {
            await client.setAnalyticsDisabled(lateAnalyticsChoice)
        }
        if dropped > 0 {
            logger.log(.warning, "\(dropped) event(s) sent before initialize were dropped: the buffer was full")
        }
        // As in v3, `initialize` returns with the SDK's first events and the replayed ones in
        // the cache: a test that initializes and then reads the cache finds them.
        await client.waitUntilProcessed()
        _ = exitHandler  // events accepted but not queued when the process exits (Telemetry+Exit.swift)
    }

    /// Stops the SDK: processors stop, queued events are sent (with a deadline), and a
    /// later `initialize` starts afresh. Events sent after it are buffered for that.
    ///
    /// Before `initialize`, it discards what was buffered (events and durations), as
    /// TelemetryDeck v3 does: a logout or opt-out flow that terminates before the SDK started
    /// sends nothing it gathered. The number discarded is logged.
    public static func terminate() async {
        stopWaitingForProtectedData()
        let (client, discarded) = state.withLock { state -> (TelemetryClient?, Int) in
            switch state.phase {
            case .running(let client):
                state.resetAfterTermination()
                return (client, 0)
            case .waiting:
                let discarded = state.gathered.events.count
                state.resetAfterTermination()
                return (nil, discarded)
            case .initializing:
                return (nil, 0)
            }
        }
        if discarded > 0 {
            StandardErrorLogger().log(
                .info,
                "Telemetry.terminate before initialize discarded \(discarded) buffered event(s)"
            )
        }
        await client?.shutdown()
    }

    /// The running client, if `initialize` finished.
    public static var client: TelemetryClient? {
        state.withLock { $0.client }
    }

    // MARK: Events

    /// Sends an event and returns at once (fire-and-forget). Events are processed in call order.
    public static func event(
        _ name: String,
        parameters: EventParameters = [:],
        floatValue: Double? = nil,
        customUserID: String? = nil
    ) {
        signal(EventInput(name, parameters: parameters, floatValue: floatValue, customUserID: customUserID))
    }

    /// Sends an event named by a `String` enum case and returns at once.
    public static func event<Name: RawRepresentable>(
        _ name: Name,
        parameters: EventParameters = [:],
        floatValue: Double? = nil,
        customUserID: String? = nil
    ) where Name.RawValue == String {
        event(name.rawValue, parameters: parameters, floatValue: floatValue, customUserID: customUserID)
    }

    /// Sends an event and returns once it is in the cache of every destination (or, before
    /// `initialize`, once it is buffered). Runs on the caller's executor, as
    /// `TelemetryClient.send(_:)` does: from the main actor it does not hop off it.
    nonisolated(nonsending) public static func event(
        _ name: String,
        parameters: EventParameters = [:],
        floatValue: Double? = nil,
        customUserID: String? = nil
    ) async {
        await send(EventInput(name, parameters: parameters, floatValue: floatValue, customUserID: customUserID))
    }

    /// Sends an event named by a `String` enum case and returns once it is cached.
    nonisolated(nonsending) public static func event<Name: RawRepresentable>(
        _ name: Name,
        parameters: EventParameters = [:],
        floatValue: Double? = nil,
        customUserID: String? = nil
    ) async where Name.RawValue == String {
        await event(name.rawValue, parameters: parameters, floatValue: floatValue, customUserID: customUserID)
    }

    /// Sends an event and returns at once (fire-and-forget): the explicit spelling of the
    /// synchronous `event`.
    public static func signal(
        _ name: String,
        parameters: EventParameters = [:],
        floatValue: Double? = nil,
        customUserID: String? = nil
    ) {
        signal(EventInput(name, parameters: parameters, floatValue: floatValue, customUserID: customUserID))
    }

    /// v3's string-parameter form of ``signal(_:parameters:floatValue:customUserID:)``, for
    /// parameters already held as `[String: String]`.
    public static func signal(
        _ signalName: String,
        parameters: [String: String],
        floatValue: Double? = nil,
        customUserID: String? = nil
    ) {
        signal(
            EventInput(
                signalName,
                parameters: EventParameters(parameters),
                floatValue: floatValue,
                customUserID: customUserID
            )
        )
    }

    /// Sends a prepared input, e.g. a preset, and returns at once (fire-and-forget).
    public static func signal(_ input: EventInput) {
        if case .client(let client) = state.withLock({ $0.take(input) }) {
            client.event(input)
        }
    }

    /// Sends a prepared input, e.g. a preset, and returns once it is cached (or buffered
    /// before `initialize`).
    ///
    /// The result says what became of it (see `SendOutcome`): `.cached` once it is in the queue,
    /// `.refused` for an event the ingest would reject (a blank name, say). Before `initialize`
    /// it is buffered and the result is `.cached` only in the sense that it is kept for then.
    @discardableResult
    nonisolated(nonsending) public static func send(_ input: EventInput) async -> SendOutcome {
        if case .client(let client) = state.withLock({ $0.take(input) }) {
            return await client.send(input)
        }
        return state.withLock { $0.gathered.analyticsChoice == true } ? .droppedByOptOut : .cached
    }

    /// Delivers everything queued now (see `TelemetryClient.flush()`). Before `initialize`
    /// (or after one that failed) nothing can be sent: the result counts the events waiting
    /// in the buffer.
    @discardableResult
    public static func flush() async -> FlushResult {
        guard let client else { return bufferedResult() }
        return await client.flush()
    }

    /// ``flush()`` that returns within `timeout` seconds whatever the receiver does (see
    /// `TelemetryClient.flush(timeout:)`): what is not delivered by then stays queued.
    @discardableResult
    public static func flush(timeout: TimeInterval) async -> FlushResult {
        guard let client else { return bufferedResult() }
        return await client.flush(timeout: timeout)
    }

    /// ``flush()`` inside background time the app got from the system, stopped when that
    /// time runs out (see `TelemetryClient.flush(expiration:)`): what is delivered leaves the
    /// queue, the rest stays for later.
    ///
    /// ```swift
    /// BGTaskScheduler.shared.register(forTaskWithIdentifier: "com.example.telemetry", using: nil) { task in
    ///     Task {
    ///         let result = await Telemetry.flush(expiration: { task.expirationHandler = $0 })
    ///         task.setTaskCompleted(success: result == .complete)
    ///     }
    /// }
    /// ```
    @discardableResult
    public static func flush(expiration: (_ handler: @escaping @Sendable () -> Void) -> Void) async -> FlushResult {
        guard let client else { return bufferedResult() }
        return await client.flush(expiration: expiration)
    }

    private static func bufferedResult() -> FlushResult {
        let waiting = state.withLock { $0.gathered.events.count }
        return waiting == 0 ? .complete : .incomplete(remaining: waiting)
    }

    // MARK: Users, sessions, test mode

    /// Sets the user identifier of later events, in this launch and the next ones (`nil` returns
    /// to the default).
    ///
    /// Returns once the choice is on disk: a program that exits right after it still sends as
    /// this user at its next launch.
    public static func setUserIdentifier(_ value: String?) async {
        guard let client else { return }
        client.setUserIdentifier(value)
        await client.processor(conformingTo: (any UserIdentifierManaging).self)?.setUserIdentifier(value)
        await client.storage.flush()
    }

    /// The current session's id; nil before `initialize` or without a session processor.
    public static var sessionID: UUID? {
        get async {
            await client?.processor(conformingTo: (any SessionManaging).self)?.currentSessionID()
        }
    }

    /// Starts a new session and returns its id; nil before `initialize` or without a
    /// session processor.
    ///
    /// When it returns, the new session's `TelemetryDeck.Session.started` is in the cache.
    @discardableResult
    public static func newSession() async -> UUID? {
        guard let client, let sessions = client.processor(conformingTo: (any SessionManaging).self) else { return nil }
        let id = await sessions.startNewSession()
        if let settling = sessions as? any IdleAwaitable {
            await settling.waitUntilIdle()
        }
        await client.waitUntilProcessed()
        return id
    }

    /// Whether events are marked as test data (the test-mode processor's decision; false
    /// before `initialize` or without one).
    public static func isTestMode() async -> Bool {
        await client?.processor(conformingTo: (any TestModeProviding).self)?.isTestMode() ?? false
    }

    // MARK: Counters

    /// The running client's counters, with events dropped before `initialize` included.
    public static var stats: TelemetryStats {
        get async {
            var stats = await client?.stats ?? TelemetryStats()
            stats.droppedBeforeStart += droppedBeforeInitializeCount
            return stats
        }
    }

    /// Events dropped so far because more than ``preInitializeBufferLimit`` were sent before
    /// `initialize`.
    public static var droppedBeforeInitializeCount: Int {
        state.withLock { $0.droppedBeforeInitialize }
    }
}
