package import TelemetryKit
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
package struct OrderRecordingProcessor: AppLifecycleAware {
    /// The name written into the log.
    package let name: String
    /// The log the processor appends to.
    package let log: CallLog

    /// Creates a processor that appends to `log` under `name`.
    package init(name: String, log: CallLog) {
        self.name = name
        self.log = log
    }

    package func process(
        _ input: EventInput,
        context: EventContext,
        next: nonisolated(nonsending) @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event {
        log.append("process:\(name)")
        return try await next(input, context)
    }

    package func attach(lifecycle: any AppLifecycleObserving, clock: any TelemetryClock) {
        log.append("attach:\(name)")
    }

    package func start(storage: any ProcessorStorage, logger: any Logging, emitter: any EventSending) async {
        log.append("start:\(name)")
    }

    package func stop() async {
        log.append("stop:\(name)")
    }
}

/// Entries written by several test doubles, in the order they were written: where order
/// across processors (or tasks) is what a test checks.
package final class CallLog: Sendable {
    private let storage = Locked([String]())

    package init() {}

    /// Appends one entry.
    package func append(_ entry: String) {
        storage.withLock { $0.append(entry) }
    }

    /// Every entry so far, oldest first.
    package var entries: [String] { storage.current }
}
