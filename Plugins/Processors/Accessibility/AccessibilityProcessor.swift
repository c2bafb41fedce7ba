public import Foundation
public import TelemetryKit
import TelemetryKitSupport

/// Adds accessibility settings and display properties: the seven keys of ``Keys``.
///
/// **Apple platforms** (UIKit on iOS, iPadOS, Mac Catalyst, tvOS and visionOS; AppKit on
/// macOS): the settings are read on the main actor through ``AccessibilitySnapshot/system()``
/// when the processor starts and again, in the background, once a reading is older than
/// ``defaultCacheDuration`` (1 hour). An event never waits for the main actor: it gets the
/// latest reading, and the event that finds it due starts the next one. Keys a platform does
/// not have are left out (macOS has no Bold Text or Dynamic Type; visionOS has no main screen
/// size).
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
public struct AccessibilityProcessor: SynchronousEventProcessor, AppLifecycleAware {
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
        /// The reading under way, if any: one at a time.
        var reading: Task<Void, Never>?
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
        guard let source else { return }
        // Read once now, so that the first event carries the settings.
        let readAt = state.withLock { $0.clock.now }
        await Self.read(source, into: state, at: readAt)
    }

    /// Adds the latest reading; when it is due again (or there is none yet), starts the next
    /// reading in the background for later events.
    public func process(_ input: inout EventInput, context: inout EventContext) throws {
        guard let source else { return }
        let parameters = state.withLock { current -> [String: PayloadValue] in
            let now = current.clock.now
            // A clock that went backwards also makes the reading due.
            let isFresh = current.readAt.map { now >= $0 && now.timeIntervalSince($0) < cacheDuration } ?? false
            if !isFresh && current.reading == nil {
                current.reading = Task { [state] in await Self.read(source, into: state, at: now) }
            }
            return current.parameters
        }
        context.addParameters(parameters)
    }

    /// Returns once the reading an event started (if any) is done: for tests.
    func readingFinished() async {
        await state.withLock { $0.reading }?.value
    }

    private static func read(_ source: SnapshotSource, into state: Locked<State>, at readAt: Date) async {
        let parameters = await source()?.parameters ?? [:]
        state.withLock { state in
            state.parameters = parameters
            state.readAt = readAt
            state.reading = nil
        }
    }
}
