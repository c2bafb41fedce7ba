public import TelemetryKit
import TelemetryKitSupport

/// The client's app lifecycle: the signals processors react to (sessions, durations) and the
/// client itself saves and sends on.
///
/// Apps on Apple platforms get these from the system through `TelemetryKitDefaults`;
/// servers, CLIs and tests drive them by hand. Processors receive it before they start, in
/// `EventProcessor.attach(lifecycle:clock:)`, as an `AppLifecycleObserving`:
///
/// ```swift
/// client.lifecycle.send(.didEnterBackground)
/// client.lifecycle.send(.willEnterForeground)
/// ```
///
/// A program launched in the background (a silent push, a background task) says so before the
/// client starts, with the same signal, so that every observer hears it: the session processor
/// opens no session and durations leave the time out until `.willEnterForeground`.
///
/// ```swift
/// let client = TelemetryClient(
///     configuration: config, processors: processors, destinations: destinations, storage: storage)
/// client.lifecycle.send(.didEnterBackground)   // launched for a background task
/// await client.start()                          // no session yet
/// ```
public final class AppLifecycle: AppLifecycleObserving {
    /// A lifecycle signal.
    public typealias Signal = AppLifecycleSignal
    /// A token that keeps an observation alive; call `cancel()` to stop observing.
    public typealias Observation = AppLifecycleObservation

    private struct State {
        var nextID = 0
        var observers: [(id: Int, handler: @Sendable (Signal) -> Void)] = []
        var inBackground = false
    }

    private let state = Locked(State())

    public init() {}

    /// Whether the last of `.didEnterBackground` and `.willEnterForeground` sent was
    /// `.didEnterBackground`; false before either.
    public var isInBackground: Bool {
        state.withLock { $0.inBackground }
    }

    /// Calls `handler` for every later signal, synchronously on the sender's thread.
    @discardableResult
    public func observe(_ handler: @escaping @Sendable (Signal) -> Void) -> Observation {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            state.observers.append((state.nextID, handler))
            return state.nextID
        }
        return Observation { self.removeObserver(id) }
    }

    /// Delivers `signal` to every observer, in registration order.
    public func send(_ signal: Signal) {
        // The state changes together with taking the observers (see `AppLifecycleObserving`):
        // an observer registered later finds the signal in `isInBackground`.
        let handlers = state.withLock { state in
            switch signal {
            case .didEnterBackground: state.inBackground = true
            case .willEnterForeground: state.inBackground = false
            case .newSessionRequested, .willTerminate: break
            }
            return state.observers.map(\.handler)
        }
        for handler in handlers { handler(signal) }
    }

    private func removeObserver(_ id: Int) {
        state.withLock { state in state.observers.removeAll { $0.id == id } }
    }
}
