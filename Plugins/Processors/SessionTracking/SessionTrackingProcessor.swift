public import TelemetryKit
import TelemetryKitSupport

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Tracks sessions and adds retention metrics to every event.
///
/// - A session starts when the client starts in the foreground, when the app first comes to
///   the foreground after a launch in the background, when it returns to the foreground after
///   at least `sessionTimeout` in the background, and on `TelemetryClient.newSession()`.
///   Every event carries the current session's id in `context.sessionID`.
/// - Each new session sends `TelemetryDeck.Session.started` (unless turned off); the first
///   session of a fresh install sends `TelemetryDeck.Acquisition.newInstallDetected` before it.
/// - Every event gets the retention parameters of ``Keys`` (session count, distinct days,
///   average session length, first session date; the previous session's length once there
///   is one). The first event of a fresh install alone also gets `isNewInstall` (`true`), as
///   in TelemetryDeck v3; later events carry no such key.
///
/// Lifecycle signals come from an `AppLifecycleObserving` source: the one given here, else the
/// client's `AppLifecycle`. Servers, command-line tools and tests send them by hand:
///
/// ```swift
/// let client = TelemetryClient(configuration: config, processors: [SessionTrackingProcessor()], …)
/// client.lifecycle.send(.didEnterBackground)
/// client.lifecycle.send(.willEnterForeground)   // a new session if 5+ minutes passed
/// ```
///
/// The history (start and length of each session) is saved in `ProcessorStorage` and kept
/// for 90 days; older sessions and days still count but lose their details. A session's
/// length runs from its start to its last activity (the last event, entering the
/// background, terminating or stopping). The last activity is saved at most every
/// ``activitySaveInterval`` while events flow and always on background, terminate and
/// `stop()`, so the next launch knows how long the previous run lasted even without an
/// orderly shutdown. Calendar days are counted in the local time zone (or a fixed UTC
/// offset given to `init`).
///
/// Events belong to the session that is current when they are processed. Session events
/// sent on a lifecycle signal are queued behind the work the signal caused, without
/// blocking the signal's sender. Events processed before `start` get only the session id.
///
/// Unreadable saved history is replaced by a fresh one and logged as a warning; it is not
/// treated as a new install.
///
/// ## Launched in the background
///
/// A silent push, a background task or a HealthKit wake starts the app, and the client with
/// it, without the user seeing the app. Such a launch is no visit: counted as a session it
/// would inflate session counts and shorten average session lengths (TelemetryDeck's SDK
/// counts it, TelemetryDeck#281). So when the lifecycle reports the app in the background
/// at `start` (`AppLifecycleObserving.isInBackground`; the system source reports it on Apple
/// platforms), no session opens, and neither `TelemetryDeck.Session.started` nor
/// `newInstallDetected` is sent, until the app first comes to the foreground
/// (`.willEnterForeground`, however soon). Then the session opens as at a launch in the
/// foreground, and the install is announced ahead of it as in TelemetryDeck v3.
///
/// Events sent meanwhile belong to no new session:
/// - They carry the previous session's id, as the session record (``Keys/activeSessionStorageKey``)
///   knows it, so that a background run adds no session id the service would count. Without
///   a record (a first launch, or a history imported from TelemetryDeck's SDK) they carry the
///   id of the session that opens when the app comes to the foreground, so that still no
///   extra id reaches the service; after `newSession()` they carry the new id.
/// - Their retention parameters are those of the stored history, without a session or a
///   day of use added; on a first launch there is no history and they carry none (nor
///   `isNewInstall`, which marks the first event of the first session).
/// - Nothing is written: a run that stays in the background leaves the history and the
///   session record as they were, so the next launch counts one session more, not two.
///
/// An app with scenes (every SwiftUI app) is in the background until its first scene
/// connects, also when the user opened it. If the client starts before that, the session
/// opens a moment later, and the few events sent meanwhile count with the previous session:
/// the price of never adding a session id for a launch nobody saw.
///
/// A launch in the background that joins another process's active session (see below)
/// joins it as in the foreground, and returns to the foreground as a process that went to
/// the background at its launch: after `sessionTimeout` with a session of its own.
///
/// ## Several processes (an app and its extensions)
///
/// When processes share their storage (`Telemetry.Config.appGroupIdentifier`), a process that
/// starts while another live process's session is active joins that session instead of
/// starting one: its events carry the same session id and retention values, it sends no
/// `TelemetryDeck.Session.started` (nor `newInstallDetected`), and the session counts once.
/// "Active" means: the session's record (``Keys/activeSessionStorageKey``: id, start, last
/// activity, and the process and executable that started it) saw activity within
/// `sessionTimeout`, that process is still running, and it is another executable (an app
/// relaunched after a crash never joins its previous run's session, even where a sandbox
/// hides whether that process is gone). So a widget refreshed while the app is in use, or
/// minutes after it went to the background, belongs to the app's session; a widget refreshed
/// an hour later, or an app relaunched after a crash, starts its own.
///
/// Why join rather than count each process: a user looking at the app and its widget is one
/// visit, and counting every extension launch as a session (extensions launch often, and
/// briefly) would inflate session counts and shorten average session lengths.
///
/// The process that started the session keeps writing the history; a process that joined
/// writes only the session's last activity (so the session stays active while it is used)
/// and reads the history back, and owns the sessions it starts later (on returning to the
/// foreground after `sessionTimeout`, or on `newSession()`). An app's return from the
/// background follows its own time there: an extension's activity meanwhile does not keep
/// the app's session going. Storage merges keys, not values: if two processes start sessions
/// at the same moment, the history of the later write wins.
public final class SessionTrackingProcessor: SessionManaging, SynchronousEventProcessor, AppLifecycleAware {
    /// The default time in the background after which returning starts a new session.
    public static let defaultSessionTimeout: TimeInterval = 300
    /// How long session details are kept.
    public static let historyRetentionDays = 90
    /// The longest time the saved last activity may lag behind while events flow.
    public static let activitySaveInterval: TimeInterval = 30

    /// Whether each new session sends `TelemetryDeck.Session.started`.
    public let sendSessionStartedEvent: Bool
    /// The time in the background after which returning starts a new session.
    public let sessionTimeout: TimeInterval

    /// This process and its executable, as the session record names them.
    let processIdentifier: Int32
    let executable: String
    private let injectedLifecycle: (any AppLifecycleObserving)?
    private let injectedClock: (any TelemetryClock)?
    private let calendar: CalendarDays
    private let state: Locked<State>
    private let work = SerialTaskQueue()
    private let attachment = Locked<Attachment?>(nil)

    private struct Attachment {
        let lifecycle: any AppLifecycleObserving
        let clock: any TelemetryClock
    }

    /// Creates a session tracker.
    ///
    /// - Parameters:
    ///   - sendSessionStartedEvent: Send `TelemetryDeck.Session.started` on each new session.
    ///   - sessionTimeout: Seconds in the background after which returning starts a new session.
    ///   - lifecycle: The lifecycle signals to follow; nil uses the client's (if any).
    ///   - clock: The clock for session times; nil uses the client's, else the system clock.
    ///   - timeZoneOffset: Seconds east of UTC for counting calendar days; nil uses the
    ///     system's local time zone.
    public convenience init(
        sendSessionStartedEvent: Bool = true,
        sessionTimeout: TimeInterval = SessionTrackingProcessor.defaultSessionTimeout,
        lifecycle: (any AppLifecycleObserving)? = nil,
        clock: (any TelemetryClock)? = nil,
        timeZoneOffset: Int? = nil
    ) {
        self.init(
            sendSessionStartedEvent: sendSessionStartedEvent,
            sessionTimeout: sessionTimeout,
            lifecycle: lifecycle,
            clock: clock,
            timeZoneOffset: timeZoneOffset,
            processIdentifier: getpid(),
            executable: ProcessInfo.processInfo.arguments.first ?? ""
        )
    }

    /// The initialiser, with the process and executable the session record names: tests stand
    /// in for an app and its extension in one test process with another (live or exited)
    /// process's id and another executable's name.
    package init(
        sendSessionStartedEvent: Bool = true,
        sessionTimeout: TimeInterval = SessionTrackingProcessor.defaultSessionTimeout,
        lifecycle: (any AppLifecycleObserving)? = nil,
        clock: (any TelemetryClock)? = nil,
        timeZoneOffset: Int? = nil,
        processIdentifier: Int32,
        executable: String
    ) {
        self.processIdentifier = processIdentifier
        self.executable = executable
        self.sendSessionStartedEvent = sendSessionStartedEvent
        self.sessionTimeout = sessionTimeout
        self.injectedLifecycle = lifecycle
        self.injectedClock = clock
        self.calendar = CalendarDays(fixedOffset: timeZoneOffset)
        self.state = Locked(State(sessionID: UUID()))
    }

    /// The id events get now, the current session's (the synchronous read of
    /// ``currentSessionID()``); while a launch in the background waits for the foreground, the
    /// id its events carry (see "Launched in the background").
    public var activeSessionID: UUID {
        state.withLock { $0.sessionID }
    }

    public func currentSessionID() async -> UUID {
        activeSessionID
    }

    /// Ends the current session and starts a new one (sending `TelemetryDeck.Session.started`
    /// unless turned off); before `start`, and in the background before the app first came to
    /// the foreground (no session is open yet), only the id changes.
    @discardableResult
    public func startNewSession() async -> UUID {
        let started = state.withLock { state -> Bool in
            if state.environment == nil { state.sessionID = UUID() }
            return state.environment != nil
        }
        if started {
            handle(.newSessionRequested)
            // Returns once `Session.started` is queued in the client, so a caller that then
            // waits for the client (the facade's `newSession()`) finds it cached.
            await work.drain()
        }
        return activeSessionID
    }

    /// Receives the client's lifecycle and clock (used unless `init` was given its own).
    public func attach(lifecycle: any AppLifecycleObserving, clock: any TelemetryClock) {
        attachment.set(Attachment(lifecycle: lifecycle, clock: clock))
    }

    public func process(_ input: inout EventInput, context: inout EventContext) throws {
        let interval = SessionTrackingProcessor.activitySaveInterval
        let (sessionID, parameters, saveDue) = state.withLock { state -> (UUID, [String: PayloadValue]?, Bool) in
            guard let environment = state.environment else { return (state.sessionID, nil, false) }
            let now = environment.clock.now
            if state.pending != nil {
                // No session yet: nothing to measure or save (see "Launched in the background").
                if now >= state.nextDayStart {
                    state.refreshPendingRetention(today: calendar.day(of: now), now: now, calendar: calendar)
                }
                return (state.sessionID, state.retention, false)
            }
            state.noteActivity(now)
            if now >= state.nextDayStart {
                state.rollDay(at: now, calendar: calendar)
            }
            var saveDue = false
            if now.timeIntervalSince(state.lastSavedActivity) >= interval {
                state.lastSavedActivity = now
                saveDue = true
            }
            if let first = state.firstEventRetention {
                state.firstEventRetention = nil
                return (state.sessionID, first, saveDue)
            }
            return (state.sessionID, state.retention, saveDue)
        }
        if saveDue {
            work.enqueue { await self.save() }
        }
        context.sessionID = sessionID
        if let parameters {
            context.addParameters(parameters)
        }
    }

    public func start(storage: any ProcessorStorage, logger: any Logging, emitter: any EventSending) async {
        let attached = attachment.current
        let clock = injectedClock ?? attached?.clock ?? SystemClock()
        let lifecycle = injectedLifecycle ?? attached?.lifecycle
        var stored = await storage.data(forKey: Keys.historyStorageKey)
        if stored == nil, let imported = await Self.telemetryDeckHistory(in: storage, logger: logger) {
            // A storage TelemetryDeck's SDK used: its users are no new installs (adopted once;
            // from then on the history key is there).
            let outcome = await Self.adoptImportedHistory(imported, into: storage, now: clock.now, logger: logger)
            if case .adopted = outcome { stored = await storage.data(forKey: Keys.historyStorageKey) }
        }
        let isFreshInstall = stored == nil
        let loaded = stored.flatMap { SessionTrackingProcessor.decodeHistory($0, logger: logger) }
        let now = clock.now
        let record = await storage.data(forKey: Keys.activeSessionStorageKey)
            .flatMap { try? ActiveSessionRecord(jsonData: $0) }
        let joinable = joinableSession(record, history: loaded, now: now)
        // The previous session, when the record describes the history's last one.
        let previousSessionID = record.flatMap { loaded?.sessions.last?.start == $0.start ? $0.id : nil }

        // Observed before the lifecycle's state is read below, so that no signal falls in
        // between: one sent before the environment is set is ignored by `handle` and found in
        // `isInBackground`, a later one is handled.
        let observation = lifecycle?.observe { [weak self] signal in self?.handle(signal) }
        let outcome = state.withLock { state -> StartOutcome? in
            guard state.environment == nil else { return nil }
            state.environment = Environment(storage: storage, logger: logger, emitter: emitter, clock: clock)
            state.observation = observation
            state.lastSavedActivity = now
            let inBackground = lifecycle?.isInBackground ?? false
            if let joinable, let loaded {
                state.history = loaded
                state.join(joinable, at: now, calendar: calendar)
                if inBackground { state.backgroundedAt = now }
                return .joined
            }
            state.history = loaded ?? SessionHistory(firstSessionDay: calendar.day(of: now))
            if inBackground {
                state.waitForForeground(
                    PendingSession(id: state.sessionID, isFreshInstall: isFreshInstall, historyIsNew: loaded == nil),
                    previousSessionID: previousSessionID,
                    at: now,
                    calendar: calendar
                )
                return .waitingForForeground
            }
            state.openSession(at: now, calendar: calendar)
            if isFreshInstall {
                state.firstEventRetention = State.markedAsNewInstall(state.retention)
            }
            return .opened
        }
        guard let outcome else {
            observation?.cancel()
            logger.log(.warning, "SessionTrackingProcessor was started twice; the second start is ignored")
            return
        }

        if outcome == .opened {
            // v3's order: the install is announced before the session it starts. Sent from
            // here, so `start` returns with them queued, ahead of what the app sent before.
            if isFreshInstall {
                await emitter.send(SessionTrackingProcessor.internalEvent(Keys.newInstallDetectedEvent, at: now))
            }
            if sendSessionStartedEvent {
                await emitter.send(SessionTrackingProcessor.internalEvent(Keys.sessionStartedEvent, at: now))
            }
        }
        // Waited for: the client writes the storage to disk once the processors have started,
        // before any event of the launch is delivered, and the new session must be counted in
        // it (a command-line tool may exit a moment later). Queued, so that it stays in order
        // with the saves of lifecycle signals that arrived meanwhile.
        work.enqueue { await self.save() }
        await work.drain()
    }

    public func stop() async {
        let observation = state.withLock { state -> AppLifecycleObservation? in
            guard let environment = state.environment else { return nil }
            // Time spent in the background is not part of the session.
            if state.backgroundedAt == nil {
                state.noteActivity(environment.clock.now)
            }
            defer { state.observation = nil }
            return state.observation
        }
        observation?.cancel()
        work.enqueue { await self.save() }
        await work.drain()
        // Saved: forget it, so that a later `start` (after the app erased its data) begins
        // afresh from the storage, with a new session id.
        state.withLock { $0 = State(sessionID: UUID()) }
    }

    /// Waits until the saves and session events triggered so far (by lifecycle signals or
    /// events) are done. `stop()` does this too.
    public func waitUntilIdle() async {
        await work.drain()
    }

    /// Reacts to one lifecycle signal; runs synchronously on the sender's thread.
    private func handle(_ signal: AppLifecycleSignal) {
        let timeout = sessionTimeout
        let outcome = state.withLock { state -> (save: Bool, newSession: NewSession?) in
            guard let environment = state.environment else { return (false, nil) }
            let now = environment.clock.now
            if let pending = state.pending {
                switch signal {
                case .willEnterForeground:
                    state.openPendingSession(pending, at: now, calendar: calendar)
                    let announcement = NewSession(
                        emitter: environment.emitter,
                        date: now,
                        announcesInstall: pending.isFreshInstall
                    )
                    return (true, announcement)
                case .newSessionRequested:
                    // Still no session in the background: later events carry the new id, and
                    // the session that opens in the foreground gets it.
                    let id = UUID()
                    state.pending?.id = id
                    state.sessionID = id
                    return (false, nil)
                case .didEnterBackground, .willTerminate:
                    return (false, nil)
                }
            }
            switch signal {
            case .didEnterBackground:
                state.noteActivity(now)
                if state.backgroundedAt == nil {
                    state.backgroundedAt = now
                }
                return (true, nil)
            case .willEnterForeground:
                guard let since = state.backgroundedAt else { return (false, nil) }
                state.backgroundedAt = nil
                guard now.timeIntervalSince(since) >= timeout else { return (false, nil) }
                state.beginNextSession(at: now, calendar: calendar)
                return (true, NewSession(emitter: environment.emitter, date: now))
            case .newSessionRequested:
                if state.backgroundedAt == nil {
                    state.noteActivity(now)
                }
                state.beginNextSession(at: now, calendar: calendar)
                // A session requested in the background starts its background time now.
                if state.backgroundedAt != nil {
                    state.backgroundedAt = now
                }
                return (true, NewSession(emitter: environment.emitter, date: now))
            case .willTerminate:
                if state.backgroundedAt == nil {
                    state.noteActivity(now)
                }
                return (true, nil)
            }
        }
        if outcome.save {
            work.enqueue { await self.save() }
        }
        guard let newSession = outcome.newSession else { return }
        var inputs: [EventInput] = []
        if newSession.announcesInstall {
            inputs.append(SessionTrackingProcessor.internalEvent(Keys.newInstallDetectedEvent, at: newSession.date))
        }
        if sendSessionStartedEvent {
            inputs.append(SessionTrackingProcessor.internalEvent(Keys.sessionStartedEvent, at: newSession.date))
        }
        for input in inputs {
            work.enqueue { await newSession.emitter.send(input) }
        }
    }

    /// Writes the history, with the current session's length up to its last activity, and the
    /// session's record for other processes. A process that joined another's session writes
    /// only the record, and takes the history as its owner wrote it.
    private func save() async {
        let (processIdentifier, executable) = (processIdentifier, executable)
        let snapshot = state.withLock { state -> (SessionHistory?, ActiveSessionRecord?, Environment)? in
            // Waiting for the foreground, there is no session of this process to write: the
            // stored history and record stay as the previous run left them.
            guard let environment = state.environment, state.pending == nil else { return nil }
            state.lastSavedActivity = max(state.lastSavedActivity, state.lastActivity)
            let lastActivity = state.lastActivity.timeIntervalSince1970
            if let joined = state.joined {
                var record = joined
                record.lastActivity = max(joined.lastActivity, lastActivity)
                return (nil, record, environment)
            }
            state.history.updateCurrentSession(lastActivity: lastActivity)
            let record = state.history.sessions.last.map { session in
                ActiveSessionRecord(
                    id: state.sessionID,
                    start: session.start,
                    lastActivity: lastActivity,
                    process: processIdentifier,
                    executable: executable
                )
            }
            return (state.history, record, environment)
        }
        guard let (history, record, environment) = snapshot else { return }
        if let history {
            await environment.storage.set(history.jsonData(), forKey: Keys.historyStorageKey)
        }
        if let record {
            await environment.storage.set(record.jsonData(), forKey: Keys.activeSessionStorageKey)
        }
        guard history == nil, let record else { return }
        // Joined: the owner's history as stored now, if it still describes the joined session.
        let current = await environment.storage.data(forKey: Keys.historyStorageKey)
            .flatMap { try? SessionHistory(jsonData: $0) }?.validated()
        guard let current, current.sessions.last?.start == record.start else { return }
        state.withLock { state in
            guard state.joined?.id == record.id else { return }
            state.history = current
        }
    }

    private static func internalEvent(_ name: String, at date: Date) -> EventInput {
        EventInput(name, timestamp: date, skipsReservedPrefixValidation: true)
    }
}
