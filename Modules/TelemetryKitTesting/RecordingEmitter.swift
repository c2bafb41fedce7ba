public import TelemetryKit
import TelemetryKitSupport

/// An emitter for starting a processor outside a client: it records what the processor
/// sends and carries the lifecycle and clock a client would attach.
///
/// A client hands each processor an emitter in `start`; a processor that follows the app's
/// lifecycle or reads the time (session tracking, accessibility) gets the client's
/// `AppLifecycle` and clock through `attach(lifecycle:clock:)`. A test that runs such a
/// processor on its own passes the same pieces from here, then reads the emitted events —
/// all at once with ``sent``, or one at a time as they come with ``emissions``:
///
/// ```swift
/// let clock = ManualClock()
/// let emitter = RecordingEmitter(clock: clock)
/// processor.attach(lifecycle: emitter.lifecycle, clock: emitter.clock)
/// await processor.start(storage: InMemoryProcessorStorage(), logger: SilentLogger(), emitter: emitter)
/// emitter.lifecycle.send(.didEnterBackground)
/// #expect(emitter.sentNames == ["TelemetryDeck.Session.started"])
/// ```
///
/// A processor that never emits can be started with a `RecordingEmitter()` as well; the test
/// then need not read it.
public final class RecordingEmitter: EventSending {
    /// The lifecycle a client would attach; send it signals to drive the processor.
    public let lifecycle: AppLifecycle
    /// The clock a client would attach.
    public let clock: any TelemetryClock
    /// Every emitted event, in order, as it is sent. The stream keeps all of them until read.
    public let emissions: AsyncStream<EventInput>

    private let continuation: AsyncStream<EventInput>.Continuation
    private let recorded = Locked([EventInput]())

    /// Creates an emitter with a fresh lifecycle and `clock` (default: a new ``ManualClock``).
    public init(lifecycle: AppLifecycle = AppLifecycle(), clock: any TelemetryClock = ManualClock()) {
        self.lifecycle = lifecycle
        self.clock = clock
        (emissions, continuation) = AsyncStream.makeStream()
    }

    public func send(_ input: EventInput) async {
        recorded.withLock { $0.append(input) }
        continuation.yield(input)
    }

    /// Every event emitted so far, in order.
    public var sent: [EventInput] { recorded.current }

    /// The names of ``sent``.
    public var sentNames: [String] { sent.map(\.name) }
}
