import TelemetryKitSupport

/// The per-client state of the conveniences built on `TelemetryClient`: the opt-out switch,
/// running durations and the navigation history.
///
/// Kept in one object so the client holds one extra property for all of them.
final class ClientFeatures: Sendable {
    private struct OptOut {
        var disabled = false
        /// Set by `setAnalyticsDisabled` in this run: the persisted value must not override it.
        var decidedThisRun = false
        var dropped = 0
    }

    let durations: DurationTracker
    let navigation = NavigationHistory()
    /// Serializes opt-out changes with each other and with loading at start.
    let settings = SerialTaskQueue()
    private let optOut = Locked(OptOut())
    private let storage: any ProcessorStorage

    init(storage: any ProcessorStorage, clock: any TelemetryClock, lifecycle: AppLifecycle, logger: any Logging) {
        self.storage = storage
        durations = DurationTracker(storage: storage, clock: clock, lifecycle: lifecycle, logger: logger)
    }

    // MARK: Opt-out

    var analyticsDisabled: Bool { optOut.withLock { $0.disabled } }

    /// Events dropped because analytics were disabled.
    var droppedWhileDisabled: Int { optOut.withLock { $0.dropped } }

    /// `true` (and counted) when analytics are disabled: the caller drops the event.
    @inline(__always)
    func dropsEvent() -> Bool {
        optOut.withLock { state in
            guard state.disabled else { return false }
            state.dropped += 1
            return true
        }
    }

    func countDropped(_ count: Int) {
        guard count > 0 else { return }
        optOut.withLock { $0.dropped += count }
    }

    func setAnalyticsDisabled(_ disabled: Bool) {
        optOut.withLock { state in
            state.disabled = disabled
            state.decidedThisRun = true
        }
    }

    // MARK: Client lifecycle

    /// Reads the persisted opt-out flag and running durations (client start).
    func start() async {
        await settings.run { [self] in
            let persisted = await storage.bool(forKey: TelemetryStorageKeys.analyticsDisabled)
            optOut.withLock { state in
                if !state.decidedThisRun { state.disabled = persisted }
            }
        }
        await durations.load()
    }

    /// Finishes pending opt-out changes and persists the running durations (client shutdown).
    func stop() async {
        await settings.drain()
        await durations.suspendAndPersist()
    }
}
