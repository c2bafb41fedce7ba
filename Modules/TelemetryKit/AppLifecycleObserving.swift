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
/// A processor gets the client's lifecycle in ``EventProcessor/attach(lifecycle:clock:)``;
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
/// ## Implementation requirements
/// Call every handler for every signal sent after it was registered, in registration order,
/// synchronously on the sending thread (a processor saves its state before the app is
/// suspended), and never again once its observation is cancelled.
public protocol AppLifecycleObserving: Sendable {
    /// Calls `handler` for every later signal until the returned observation is cancelled.
    @discardableResult
    func observe(_ handler: @escaping @Sendable (AppLifecycleSignal) -> Void) -> AppLifecycleObservation
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
