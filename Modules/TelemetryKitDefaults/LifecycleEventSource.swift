import TelemetryKitSupport
/// Where a client's app lifecycle signals come from.
///
/// Sessions rotate, durations leave out background time, and the client saves its state and
/// sends its queue only when its `AppLifecycle` hears about the app going to the background
/// and coming back. On Apple platforms `SystemLifecycleEventSource` reports the system's
/// notifications (UIKit, AppKit, WatchKit) and `Telemetry.initialize` connects it. Adopt the
/// protocol for anything else that knows: SwiftUI's `scenePhase`, an app extension's host
/// notifications, or a test.
///
/// ```swift
/// struct ScenePhaseSource: LifecycleEventSource {
///     let phases: PhaseBroadcaster   // calls back on every scenePhase change
///     func subscribe(_ handler: @escaping @Sendable (AppLifecycle.Signal) -> Void) -> LifecycleSubscription {
///         let token = phases.observe { phase in handler(phase == .background ? .didEnterBackground : .willEnterForeground) }
///         return LifecycleSubscription { token.cancel() }
///     }
/// }
/// Telemetry.lifecycleEventSource = ScenePhaseSource(phases: broadcaster)   // before initialize
/// ```
///
/// ## Implementation requirements
/// - Call `handler` for every signal from the time `subscribe` returns until the
///   subscription is cancelled, synchronously and in the order the signals happen.
/// - Report `.didEnterBackground` and `.willEnterForeground` in pairs where the platform
///   allows; `.willTerminate` when the app is about to end. `.newSessionRequested` is the
///   client's own and is not expected from a source.
/// - When the app is in the background as `subscribe` is called (launched by a silent push or
///   a background task), report `.didEnterBackground` before `subscribe` returns. The facade
///   subscribes before the processors start, so the launch opens no session until the source
///   reports `.willEnterForeground` (see `SessionTrackingProcessor`); a source that cannot
///   tell reports nothing, and the launch counts as one in the foreground.
public protocol LifecycleEventSource: Sendable {
    /// Starts reporting signals to `handler` until the returned subscription is cancelled.
    func subscribe(_ handler: @escaping @Sendable (AppLifecycle.Signal) -> Void) -> LifecycleSubscription
}

/// Keeps a ``LifecycleEventSource`` reporting; cancelled explicitly or when released.
public final class LifecycleSubscription: Sendable {
    private let onCancel: Locked<(@Sendable () -> Void)?>

    /// A subscription that runs `onCancel` once, on the first `cancel()` or when released.
    public init(onCancel: @escaping @Sendable () -> Void) {
        self.onCancel = Locked(onCancel)
    }

    deinit {
        cancel()
    }

    /// Stops the reports. Calling it again does nothing.
    public func cancel() {
        let action = onCancel.withLock { action -> (@Sendable () -> Void)? in
            defer { action = nil }
            return action
        }
        action?()
    }
}

extension AppLifecycle {
    /// Passes every signal of `source` on to this lifecycle's observers, until the returned
    /// subscription is cancelled or released.
    ///
    /// ```swift
    /// let subscription = client.lifecycle.follow(SystemLifecycleEventSource())
    /// ```
    ///
    /// The lifecycle is held weakly: the subscription does not keep a client alive. Follow
    /// before `start()`, so that a source reporting a launch in the background is heard
    /// before the processors decide whether to open a session.
    public func follow(_ source: any LifecycleEventSource) -> LifecycleSubscription {
        source.subscribe { [weak self] signal in
            self?.send(signal)
        }
    }
}
