import TelemetryKitSupport

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// What a stopped duration measured.
public struct DurationResult: Sendable, Hashable {
    /// The measured time, in seconds.
    public let durationInSeconds: TimeInterval
    /// The parameters given when the duration started.
    public let startParameters: EventParameters

    public init(durationInSeconds: TimeInterval, startParameters: EventParameters) {
        self.durationInSeconds = durationInSeconds
        self.startParameters = startParameters
    }
}

/// Measures named durations (`Telemetry.startDurationEvent` / `stopAndSendDurationEvent`).
///
/// ## Implementation requirements
/// - Starting a name that already runs starts it afresh.
/// - `stopDuration` returns `nil` for a name that does not run.
/// - Time in the background is excluded unless the duration was started with
///   `includeBackgroundTime`.
public protocol DurationTracking: Sendable {
    func startDuration(_ eventName: String, parameters: EventParameters, includeBackgroundTime: Bool) async
    func stopDuration(_ eventName: String) async -> DurationResult?
    func cancelDuration(_ eventName: String) async
}

/// The running durations of one client (its ``TelemetryClient/durations``): the
/// `DurationTracking` the `Telemetry` facade and `TelemetryClient.startDurationEvent` use.
///
/// - Background time: between `.didEnterBackground` and `.willEnterForeground` of the
///   client's `AppLifecycle`, measured with the client's clock, and subtracted unless a
///   duration was started with `includeBackgroundTime: true`.
/// - Restarts: the running durations are persisted in the client's `ProcessorStorage`
///   (`TelemetryStorageKeys.runningDurations`) on every change and loaded at `start()`. The
///   time the app was not running counts as background time: from the last
///   `.didEnterBackground` or the last `shutdown()` to the next `start()`. After a crash
///   without either signal, that gap cannot be known and is counted.
public final class DurationTracker: DurationTracking {
    /// One running duration.
    struct Running: Sendable, Equatable {
        var parameters: EventParameters
        var startedAt: Date
        /// Background seconds already subtracted (only when background time is excluded).
        var excludedSeconds: Double
        var includesBackgroundTime: Bool
    }

    private struct State {
        var running: [String: Running] = [:]
        /// When the app went to the background (or stopped); nil in the foreground.
        var suspendedAt: Date?
        var loaded = false
    }

    private let state = Locked(State())
    private let storage: any ProcessorStorage
    private let clock: any TelemetryClock
    private let logger: any Logging
    private let writer = SerialTaskQueue()
    private let observation = Locked<AppLifecycle.Observation?>(nil)

    init(storage: any ProcessorStorage, clock: any TelemetryClock, lifecycle: AppLifecycle, logger: any Logging) {
        self.storage = storage
        self.clock = clock
        self.logger = logger
        let token = lifecycle.observe { [weak self] signal in
            self?.handle(signal)
        }
        observation.set(token)
    }

    deinit {
        observation.current?.cancel()
    }

    // MARK: Operations

    /// Starts (or restarts) the duration named `name`.
    public func startDuration(_ eventName: String, parameters: EventParameters, includeBackgroundTime: Bool) {
        startDuration(eventName, parameters: parameters, includeBackgroundTime: includeBackgroundTime, startedAt: nil)
    }

    /// Starts (or restarts) the duration named `name` at `startedAt` (default: now), e.g. one
    /// recorded before the client existed.
    public func startDuration(
        _ name: String,
        parameters: EventParameters,
        includeBackgroundTime: Bool,
        startedAt date: Date?
    ) {
        let startedAt = date ?? clock.now
        state.withLock { state in
            state.running[name] = Running(
                parameters: parameters,
                startedAt: startedAt,
                excludedSeconds: 0,
                includesBackgroundTime: includeBackgroundTime
            )
        }
        persist()
    }

    /// Stops the duration named `eventName` now; nil if none runs.
    public func stopDuration(_ eventName: String) -> DurationResult? {
        stopDuration(eventName, at: clock.now)
    }

    /// Stops the duration named `name` at `now` and returns what it measured, or nil if none runs.
    public func stopDuration(_ name: String, at now: Date) -> DurationResult? {
        let running = state.withLock { state -> (Running, Date?)? in
            guard let running = state.running.removeValue(forKey: name) else { return nil }
            return (running, state.suspendedAt)
        }
        guard let (entry, suspendedAt) = running else { return nil }
        persist()
        return DurationResult(
            durationInSeconds: Self.seconds(of: entry, until: now, suspendedAt: suspendedAt),
            startParameters: entry.parameters
        )
    }

    /// Forgets the duration named `eventName`.
    public func cancelDuration(_ eventName: String) {
        let removed = state.withLock { $0.running.removeValue(forKey: eventName) != nil }
        if removed { persist() }
    }

    /// The names of the running durations, sorted.
    public var runningNames: [String] {
        state.withLock { $0.running.keys.sorted() }
    }

    /// Elapsed seconds of `entry` at `now`, background excluded as asked.
    static func seconds(of entry: Running, until now: Date, suspendedAt: Date?) -> Double {
        var excluded = entry.excludedSeconds
        if !entry.includesBackgroundTime, let suspendedAt {
            excluded += max(0, now.timeIntervalSince(max(suspendedAt, entry.startedAt)))
        }
        return max(0, now.timeIntervalSince(entry.startedAt) - excluded)
    }

    // MARK: Lifecycle

    private func handle(_ signal: AppLifecycle.Signal) {
        let now = clock.now
        switch signal {
        case .didEnterBackground:
            state.withLock { state in
                if state.suspendedAt == nil { state.suspendedAt = now }
            }
            persist()
        case .willEnterForeground:
            state.withLock { state in
                guard let suspendedAt = state.suspendedAt else { return }
                Self.resume(&state.running, suspendedAt: suspendedAt, now: now)
                state.suspendedAt = nil
            }
            persist()
        case .newSessionRequested, .willTerminate:
            break
        }
    }

    /// Moves the background time since `suspendedAt` into each entry that excludes it.
    private static func resume(_ running: inout [String: Running], suspendedAt: Date, now: Date) {
        for (name, var entry) in running where !entry.includesBackgroundTime {
            entry.excludedSeconds += max(0, now.timeIntervalSince(max(suspendedAt, entry.startedAt)))
            running[name] = entry
        }
    }

    /// Loads the durations of the last run (client start). Durations started since this
    /// instance was created win over persisted ones of the same name.
    func load() async {
        let data = await storage.data(forKey: TelemetryStorageKeys.runningDurations)
        var persisted = Persisted(running: [:], suspendedAt: nil)
        if let data {
            do {
                persisted = try JSONDecoder().decode(Persisted.self, from: data)
            } catch {
                logger.log(.warning, "running durations could not be read and were discarded: \(error)")
            }
        }
        let now = clock.now
        state.withLock { state in
            guard !state.loaded else { return }
            state.loaded = true
            var restored = persisted.running.mapValues(\.running)
            // The app was not running since it was suspended (background or shutdown).
            if let suspendedAt = persisted.suspendedAt.map(Date.init(timeIntervalSince1970:)) {
                Self.resume(&restored, suspendedAt: suspendedAt, now: now)
            }
            state.running = restored.merging(state.running) { _, current in current }
        }
        persist()
    }

    /// Marks the app as suspended from now (client shutdown) and waits for the last write.
    func suspendAndPersist() async {
        let now = clock.now
        state.withLock { state in
            if state.suspendedAt == nil { state.suspendedAt = now }
        }
        persist()
        await writer.drain()
    }

    // MARK: Persistence

    private struct Persisted: Codable {
        var running: [String: StoredRunning]
        var suspendedAt: Double?
    }

    private struct StoredRunning: Codable {
        var parameters: [String: StoredPayloadValue]
        var startedAt: Double
        var excludedSeconds: Double
        var includesBackgroundTime: Bool

        init(_ running: Running) {
            parameters = running.parameters.values.mapValues(StoredPayloadValue.init)
            startedAt = running.startedAt.timeIntervalSince1970
            excludedSeconds = running.excludedSeconds
            includesBackgroundTime = running.includesBackgroundTime
        }

        var running: Running {
            Running(
                parameters: EventParameters(parameters.mapValues(\.value)),
                startedAt: Date(timeIntervalSince1970: startedAt),
                excludedSeconds: excludedSeconds,
                includesBackgroundTime: includesBackgroundTime
            )
        }
    }

    /// Writes the current state; writes run in order and each one takes the newest state,
    /// so a slow write never overwrites a newer one.
    private func persist() {
        writer.enqueue { [weak self] in
            guard let self else { return }
            let snapshot = self.state.withLock { state -> Persisted? in
                // Before `load()`, writing would erase the durations of the last run.
                guard state.loaded else { return nil }
                return Persisted(
                    running: state.running.mapValues(StoredRunning.init),
                    suspendedAt: state.suspendedAt?.timeIntervalSince1970
                )
            }
            guard let snapshot else { return }
            if snapshot.running.isEmpty {
                await self.storage.removeValue(forKey: TelemetryStorageKeys.runningDurations)
                return
            }
            do {
                let data = try JSONEncoder().encode(snapshot)
                await self.storage.set(data, forKey: TelemetryStorageKeys.runningDurations)
            } catch {
                self.logger.log(.error, "running durations could not be saved: \(error)")
            }
        }
    }

    /// Forgets every running duration and waits until the storage no longer holds them (the
    /// app erases its data).
    func removeAll() async {
        state.withLock { $0.running = [:] }
        persist()
        await writer.drain()
    }

    /// Waits until the running durations are written to storage (for tests and shutdown).
    public func waitUntilPersisted() async {
        await writer.drain()
    }
}
