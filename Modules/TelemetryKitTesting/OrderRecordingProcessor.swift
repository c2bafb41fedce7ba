public import TelemetryKit
import TelemetryKitSupport

/// A processor that writes each call it receives into a log shared with other processors,
/// then continues unchanged.
///
/// Several of them in one pipeline show in which order the client starts, runs and stops its
/// processors: every entry is `"attach:<name>"`, `"start:<name>"`, `"process:<name>"` or
/// `"stop:<name>"`.
///
/// ```swift
/// let log = CallLog()
/// let harness = await TestHarness.make(processors: [
///     OrderRecordingProcessor(name: "A", log: log), OrderRecordingProcessor(name: "B", log: log),
/// ])
/// // log.entries == ["attach:A", "attach:B", "start:A", "start:B"]
/// ```
public struct OrderRecordingProcessor: AppLifecycleAware {
    /// The name written into the log.
    public let name: String
    /// The log the processor appends to.
    public let log: CallLog

    /// Creates a processor that appends to `log` under `name`.
    public init(name: String, log: CallLog) {
        self.name = name
        self.log = log
    }

    public func process(
        _ input: EventInput,
        context: EventContext,
        next: nonisolated(nonsending) @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event {
        log.append("process:\(name)")
        return try await next(input, context)
    }

    public func attach(lifecycle: any AppLifecycleObserving, clock: any TelemetryClock) {
        log.append("attach:\(name)")
    }

    public func start(storage: any ProcessorStorage, logger: any Logging, emitter: any EventSending) async {
        log.append("start:\(name)")
    }

    public func stop() async {
        log.append("stop:\(name)")
    }
}

/// Entries written by several test doubles, in the order they were written: where order
/// across processors (or tasks) is what a test checks.
public final class CallLog: Sendable {
    private let storage = Locked([String]())

    public init() {}

    /// Appends one entry.
    public func append(_ entry: String) {
        storage.withLock { $0.append(entry) }
    }

    /// Every entry so far, oldest first.
    public var entries: [String] { storage.current }
}
