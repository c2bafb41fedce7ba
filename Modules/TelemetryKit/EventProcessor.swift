/// A middleware step that can enrich, transform or filter events.
///
/// Processors run in array order. Each one receives the event and the accumulated
/// context, may change either, and calls `next` to continue. To drop the event, throw
/// ``ProcessorError/eventFiltered`` instead of calling `next`.
///
/// ```swift
/// struct ABTestProcessor: EventProcessor {
///     let variant: String
///     func process(
///         _ input: EventInput,
///         context: EventContext,
///         next: nonisolated(nonsending) @Sendable (EventInput, EventContext) async throws -> Event
///     ) async throws -> Event {
///         var ctx = context
///         ctx.addParameter("ABTest.variant", value: variant)
///         return try await next(input, ctx)
///     }
/// }
/// ```
///
/// ## Implementation requirements
/// - `process` is on the hot path of every event: compute constants in `init` or `start`,
///   keep mutable state behind a lock rather than an actor hop per event, and add
///   precomputed dictionaries with ``EventContext/addParameters(_:)-(EventParameters)``.
/// - A processor that only changes the event and its context *before* the rest of the
///   pipeline, without suspending, should adopt ``SynchronousEventProcessor`` instead: the
///   pipeline then runs it as a plain function call on the caller's executor — no async call,
///   and from the main actor no hop off it.
/// - `process` is called for one event at a time per client, in the order events were sent.
/// - `start` runs once, in pipeline order, before the first event is processed. Events sent
///   through `emitter` run the whole pipeline, including this processor; never await the
///   delivery of an emitted event from inside `process`.
/// - `stop` runs at shutdown; persist what must survive there.
/// - When the app erases its data (`Telemetry.removeAllData()`), the client calls `stop`, erases
///   the storage and calls `start` again, with no event processed in between: after `stop`,
///   forget what the storage held, so that the next `start` begins afresh from it.
public protocol EventProcessor: Sendable {
    /// Processes one event and calls `next` to continue the pipeline.
    ///
    /// `next` is `nonisolated(nonsending)`: it runs on the executor of whoever calls it, as
    /// TelemetryDeck v3's `next` does. A processor written for v3 compiles unchanged in a
    /// module built with `NonisolatedNonsendingByDefault` (Xcode's "Approachable
    /// Concurrency", and v3's own settings), where the plain `@Sendable (…) async throws`
    /// spelling means exactly this. A module without that feature spells it out:
    ///
    /// ```swift
    /// next: nonisolated(nonsending) @Sendable (EventInput, EventContext) async throws -> Event
    /// ```
    func process(
        _ input: EventInput,
        context: EventContext,
        next: nonisolated(nonsending) @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event

    /// Called when the client starts, before any event is processed; again after ``stop()``
    /// when the app erased its data.
    func start(storage: any ProcessorStorage, logger: any Logging, emitter: any EventSending) async

    /// Called when the client shuts down, and before the app's data is erased.
    func stop() async
}

extension EventProcessor {
    public func start(storage: any ProcessorStorage, logger: any Logging, emitter: any EventSending) async {}
    public func stop() async {}
}

/// A processor that changes an event and its context before the rest of the pipeline and
/// never suspends: most enrichers and filters.
///
/// Why: an async middleware call per processor is most of what a pipeline of cheap
/// processors costs, and awaited from the main actor, an async function that is not
/// `nonisolated(nonsending)` hops off the main actor and back. The pipeline finds these
/// processors once, when it is built, and calls ``process(_:context:)`` directly, on the
/// caller's executor. The protocol supplies
/// ``EventProcessor/process(_:context:next:)`` from it, so the processor also works
/// wherever a middleware is expected.
///
/// ```swift
/// struct ABTestProcessor: SynchronousEventProcessor {
///     let variant: String
///     func process(_ input: inout EventInput, context: inout EventContext) throws {
///         context.addParameter("ABTest.variant", value: variant)
///     }
/// }
/// ```
///
/// ## Implementation requirements
/// - Throw ``ProcessorError/eventFiltered`` to drop the event.
/// - Keep it short: from an awaited `send` on the main actor it runs on the main actor.
///   Work that must wait (a read on another actor, a file) belongs in the async
///   ``EventProcessor/process(_:context:next:)`` of a plain ``EventProcessor``.
public protocol SynchronousEventProcessor: EventProcessor {
    /// Changes the event and its context, or throws ``ProcessorError/eventFiltered``.
    func process(_ input: inout EventInput, context: inout EventContext) throws
}

extension SynchronousEventProcessor {
    @inlinable
    public func process(
        _ input: EventInput,
        context: EventContext,
        next: nonisolated(nonsending) @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event {
        var input = input
        var context = context
        try process(&input, context: &context)
        return try await next(input, context)
    }
}

/// Errors a processor throws to end an event's trip through the pipeline.
public enum ProcessorError: Error, Sendable {
    /// The event is dropped on purpose and counted as filtered.
    case eventFiltered
    /// The processor failed; the event is dropped, counted as failed and logged.
    case processingFailed(underlying: any Error)
}
