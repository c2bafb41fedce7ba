#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

// Capabilities: what a processor can offer beyond processing events. The client (and the
// `Telemetry` facade) find the processor that provides one with
// `TelemetryClient.processor(conformingTo:)`, so a replacement processor that adopts the
// same protocol takes over the facade's calls, and no processor needs to know the client.

/// A processor that owns sessions: `Telemetry.sessionID` and `Telemetry.newSession()` reach it.
///
/// ```swift
/// if let sessions = client.processor(conformingTo: (any SessionManaging).self) {
///     let id = await sessions.startNewSession()
/// }
/// ```
public protocol SessionManaging: EventProcessor {
    /// The id of the session events belong to now.
    func currentSessionID() async -> UUID
    /// Ends the current session and starts a new one; returns the new session's id.
    @discardableResult
    func startNewSession() async -> UUID
}

/// A processor that decides whether events are test data: `Telemetry.isTestMode()` asks it.
public protocol TestModeProviding: EventProcessor {
    func isTestMode() async -> Bool
}

/// A processor that owns the user identifier: `Telemetry.setUserIdentifier(_:)` reaches it.
public protocol UserIdentifierManaging: EventProcessor {
    /// The identifier later events get when they name none themselves.
    func currentUserIdentifier() async -> String?
    /// Sets the identifier of later events; `nil` returns to the default.
    func setUserIdentifier(_ value: String?) async
    /// Gives later events a new identity (a user logged out): the identifier set with
    /// ``setUserIdentifier(_:)`` is cleared and an install-scoped default is replaced by a new
    /// one. Default: clears the set identifier only.
    func resetIdentity() async
}

extension UserIdentifierManaging {
    public func resetIdentity() async {
        await setUserIdentifier(nil)
    }
}

/// A processor that reads what only the sender's task knows, when the event is sent.
///
/// Processors run later, on the client's intake task, where the sender's task-local values
/// (a request's trace in swift-distributed-tracing's `ServiceContext.current`, say) are gone.
/// The client calls ``captureCallSite()`` synchronously inside `event(...)` and `send(...)`,
/// on the caller's task, and adds what it returns to that event's context metadata — so it
/// reaches the payload like any processor's metadata: the event's own parameters win, and
/// prefixing and validation of app keys leave it alone.
///
/// ```swift
/// struct RequestIDCapture: CallSiteCapturing, SynchronousEventProcessor {
///     func captureCallSite() -> [String: PayloadValue]? {
///         RequestContext.id.map { ["request_id": .string($0)] }   // a @TaskLocal of the app
///     }
///     func process(_ input: inout EventInput, context: inout EventContext) throws {}
/// }
/// ```
///
/// ## Implementation requirements
/// - Return quickly and never block: it runs on the sender's thread for every event (return
///   `nil` when there is nothing to add, so the event costs no allocation).
/// - Read only: the sender's task is not yours to change.
public protocol CallSiteCapturing: EventProcessor {
    /// Metadata for the event being sent, read on the sender's task; `nil` adds nothing.
    func captureCallSite() -> [String: PayloadValue]?
}

/// A processor that follows the app's lifecycle (background, foreground, a new session,
/// termination) or measures time with the client's clock.
///
/// The client hands its lifecycle and clock to every such processor once, before
/// ``EventProcessor/start(storage:logger:emitter:)``. Used without a client (a test of the
/// processor alone), it gets them from the test, or falls back to its own defaults.
///
/// ```swift
/// func attach(lifecycle: any AppLifecycleObserving, clock: any TelemetryClock) {
///     observation.set(lifecycle.observe { [weak self] signal in self?.handle(signal) })
/// }
/// ```
public protocol AppLifecycleAware: EventProcessor {
    /// Receives the client's lifecycle and clock, before the processor starts.
    func attach(lifecycle: any AppLifecycleObserving, clock: any TelemetryClock)
}
