/// App lifecycle signals that processors react to (sessions, durations).
///
/// Apps on Apple platforms get these from the system through `TelemetryKitDefaults`;
/// servers, CLIs and tests drive them by hand. Processors receive the client's lifecycle
/// before they start, in ``EventProcessor/attach(lifecycle:clock:)``:
///
/// ```swift
/// client.lifecycle.send(.didEnterBackground)
/// client.lifecycle.send(.willEnterForeground)
/// ```
public final class AppLifecycle: Sendable {
    /// A lifecycle signal.
    public enum Signal: Sendable, Hashable {
        case didEnterBackground
        case willEnterForeground
        /// The app asked for a new session (`TelemetryClient.newSession()`).
        case newSessionRequested
        case willTerminate
    }

    /// A token that keeps an observation alive; call `cancel()` to stop observing.
    public struct Observation: Sendable, Hashable {
        let id: Int
        let lifecycle: AppLifecycle

        public static func == (lhs: Observation, rhs: Observation) -> Bool {
            lhs.id == rhs.id && lhs.lifecycle === rhs.lifecycle
        }

        public func hash(into hasher: inout Hasher) { hasher.combine(id) }

        public func cancel() { lifecycle.removeObserver(id) }
    }

    private struct State {
        var nextID = 0
        var observers: [(id: Int, handler: @Sendable (Signal) -> Void)] = []
        var backgroundTasks: (any BackgroundTaskProviding)?
    }

    private let state = Locked(State())

    public init() {}

    /// Where the client gets running time for saving and sending after the app went to the
    /// background (UIKit's background tasks; `Telemetry.initialize` sets them on iOS, tvOS
    /// and visionOS). Nil, the default: the work runs for as long as the app does.
    public var backgroundTasks: (any BackgroundTaskProviding)? {
        get { state.withLock { $0.backgroundTasks } }
        set { state.withLock { $0.backgroundTasks = newValue } }
    }

    /// Calls `handler` for every later signal, synchronously on the sender's thread.
    @discardableResult
    public func observe(_ handler: @escaping @Sendable (Signal) -> Void) -> Observation {
        let id = state.withLock { state -> Int in
            state.nextID += 1
            state.observers.append((state.nextID, handler))
            return state.nextID
        }
        return Observation(id: id, lifecycle: self)
    }

    /// Delivers `signal` to every observer, in registration order.
    public func send(_ signal: Signal) {
        let handlers = state.withLock { $0.observers.map(\.handler) }
        for handler in handlers { handler(signal) }
    }

    fileprivate func removeObserver(_ id: Int) {
        state.withLock { state in state.observers.removeAll { $0.id == id } }
    }
}
