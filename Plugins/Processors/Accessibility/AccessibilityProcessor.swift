public import Foundation
public import TelemetryKit
import TelemetryKitSupport

/// Adds accessibility settings and display properties: the seven keys of ``Keys``.
///
/// **Apple platforms** (UIKit on iOS, iPadOS, Mac Catalyst, tvOS and visionOS; AppKit on
/// macOS): the settings are read on the main actor through ``AccessibilitySnapshot/system()``
/// and cached for ``defaultCacheDuration`` (1 hour), so at most one main-actor hop per hour
/// reaches the event path. Keys a platform does not have are left out (macOS has no Bold
/// Text or Dynamic Type; visionOS has no main screen size).
///
/// **Linux, watchOS and every other platform:** there is no system source, and the
/// processor adds nothing: events pass through unchanged, and no main-actor hop happens
/// (a server's main thread may never serve one).
///
/// Pass `snapshot` to supply the values yourself (tests, or an app that knows better); the
/// cache then applies to that source on every platform.
///
/// ```swift
/// let processor = AccessibilityProcessor()   // system settings on Apple platforms, nothing on Linux
/// ```
public struct AccessibilityProcessor: EventProcessor {
    /// How long one reading of the settings is used: 1 hour.
    public static let defaultCacheDuration: TimeInterval = 3_600

    /// A source of settings; called on a refresh, at most once per cache period.
    public typealias SnapshotSource = @Sendable () async -> AccessibilitySnapshot?

    /// How long one reading of the settings is used.
    public let cacheDuration: TimeInterval
    private let source: SnapshotSource?
    private let state: Locked<State>

    private struct State {
        var clock: any TelemetryClock
        /// Whether `clock` was chosen by the caller (and must not be replaced in `start`).
        var isClockFixed: Bool
        var parameters: [String: PayloadValue] = [:]
        var readAt: Date?
    }

    /// Creates the processor.
    ///
    /// - Parameters:
    ///   - cacheDuration: How long one reading is used (default 1 hour).
    ///   - clock: The clock that ages the cache (default: the client's clock, handed over in
    ///     `start`; the system clock before that).
    ///   - snapshot: Where the settings come from (default: the system on Apple platforms,
    ///     none elsewhere).
    public init(
        cacheDuration: TimeInterval = AccessibilityProcessor.defaultCacheDuration,
        clock: (any TelemetryClock)? = nil,
        snapshot: SnapshotSource? = nil
    ) {
        self.cacheDuration = cacheDuration
        self.source = snapshot ?? AccessibilityProcessor.systemSource
        self.state = Locked(State(clock: clock ?? SystemClock(), isClockFixed: clock != nil))
    }

    /// Whether this processor adds anything: false on platforms without a system source
    /// when no `snapshot` source was given.
    public var isActive: Bool { source != nil }

    /// The system source where one exists.
    private static var systemSource: SnapshotSource? {
        guard AccessibilitySnapshot.isSystemSupported else { return nil }
        return { await AccessibilitySnapshot.system() }
    }

    /// Uses the client's clock for the cache's age, unless `init` was given one.
    public func attach(lifecycle: any AppLifecycleObserving, clock: any TelemetryClock) {
        state.withLock { state in
            if !state.isClockFixed { state.clock = clock }
        }
    }

    public func start(storage: any ProcessorStorage, logger: any Logging, emitter: any EventSending) async {
        guard source != nil else { return }
        // Read once now so the first event does not wait for the main actor.
        _ = await currentParameters()
    }

    /// The synchronous path: without a source, or while the last reading is fresh, the event
    /// goes on without an async call; only a reading that is due again takes
    /// ``process(_:context:next:)``.
    public func processImmediately(
        _ input: inout EventInput,
        context: inout EventContext
    ) throws -> ImmediateProcessing {
        guard source != nil else { return .continued }
        guard let fresh = freshParameters().parameters else { return .needsAsync }
        context.addParameters(fresh)
        return .continued
    }

    public func process(
        _ input: EventInput,
        context: EventContext,
        next: nonisolated(nonsending) @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event {
        guard source != nil else { return try await next(input, context) }
        var context = context
        context.addParameters(await currentParameters())
        return try await next(input, context)
    }

    /// The cached reading while it is fresh (nil once it is due again), and the time now.
    private func freshParameters() -> (parameters: [String: PayloadValue]?, now: Date) {
        state.withLock { state in
            let now = state.clock.now
            // A clock that went backwards also forces a new reading.
            if let readAt = state.readAt, now >= readAt, now.timeIntervalSince(readAt) < cacheDuration {
                return (state.parameters, now)
            }
            return (nil, now)
        }
    }

    /// The cached parameters, read again from the source when older than `cacheDuration`.
    func currentParameters() async -> [String: PayloadValue] {
        guard let source else { return [:] }
        let (fresh, now) = freshParameters()
        if let fresh { return fresh }
        let parameters = await source()?.parameters ?? [:]
        state.withLock { state in
            state.parameters = parameters
            state.readAt = now
        }
        return parameters
    }
}
