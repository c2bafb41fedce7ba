/// A change in the app's lifecycle that processors react to (sessions, durations).
public enum AppLifecycleSignal: Sendable, Hashable {
    case didEnterBackground
    case willEnterForeground
    /// The app asked for a new session (`TelemetryClient.newSession()`).
    case newSessionRequested
    case willTerminate
}

/// Where a processor hears about the app's lifecycle: background, foreground, a new session,
/// termination.
///
/// A processor gets the client's lifecycle in ``AppLifecycleAware/attach(lifecycle:clock:)``;
/// the client's is an `AppLifecycle` (`TelemetryKitClient`), which apps on Apple platforms
/// feed from the system and servers, CLIs and tests drive by hand. A processor only observes,
/// so it depends on this protocol, and a test of the processor alone can hand it any source:
///
/// ```swift
/// func attach(lifecycle: any AppLifecycleObserving, clock: any TelemetryClock) {
///     observation.set(lifecycle.observe { [weak self] signal in
///         if signal == .didEnterBackground { self?.save() }
///     })
/// }
/// ```
///
/// A processor that must know whether the app runs in the background right now (at `start`,
/// before any signal arrives) reads ``isInBackground``: an app launched in the background by
/// a silent push or a background task is no visit, so the session processor opens no session
/// until the app first comes to the foreground.
///
/// ## Implementation requirements
/// Call every handler for every signal sent after it was registered, in registration order,
/// synchronously on the sending thread (a processor saves its state before the app is
/// suspended), and never again once its observation is cancelled.
///
/// ``isInBackground`` reflects the signals sent so far. Update it in the same step that takes
/// the handlers a signal reaches, so that a processor that registers its handler and then
/// reads the state misses no change: a signal either reached the handler or is in the state
/// read. Reading it must be cheap and must not block: processors read it holding a lock.
public protocol AppLifecycleObserving: Sendable {
    /// Calls `handler` for every later signal until the returned observation is cancelled.
    @discardableResult
    func observe(_ handler: @escaping @Sendable (AppLifecycleSignal) -> Void) -> AppLifecycleObservation

    /// Whether the app is in the background now: true from a `.didEnterBackground` until the
    /// next `.willEnterForeground`, including one reported before the processor started (an
    /// app launched in the background).
    ///
    /// ```swift
    /// if lifecycle.isInBackground { deferWorkUntilForeground() }
    /// ```
    var isInBackground: Bool { get }
}

extension AppLifecycleObserving {
    /// False: a source that does not track the state reports every launch as one in the
    /// foreground, as before the property existed.
    public var isInBackground: Bool { false }
}

/// Keeps an observation of an ``AppLifecycleObserving`` source; ``cancel()`` ends it.
public struct AppLifecycleObservation: Sendable {
    private let onCancel: @Sendable () -> Void

    /// An observation that `onCancel` ends (it removes the handler from the source).
    public init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = onCancel
    }

    /// Stops the handler from being called for later signals.
    public func cancel() { onCancel() }
}
