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
///         next: @Sendable (EventInput, EventContext) async throws -> Event
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
///   keep mutable state behind a lock (see ``Locked``) rather than an actor hop per event,
///   and add precomputed dictionaries with ``EventContext/addParameters(_:)-(EventParameters)``.
/// - `process` is called for one event at a time per client, in the order events were sent.
/// - `start` runs once, in pipeline order, before the first event is processed. Events sent
///   through `emitter` run the whole pipeline, including this processor; never await the
///   delivery of an emitted event from inside `process`.
/// - `stop` runs once at shutdown; persist what must survive there.
public protocol EventProcessor: Sendable {
    /// Processes one event and calls `next` to continue the pipeline.
    func process(
        _ input: EventInput,
        context: EventContext,
        next: @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event

    /// Called once when the client starts, before any event is processed.
    func start(storage: any ProcessorStorage, logger: any Logging, emitter: any EventSending) async

    /// Called once when the client shuts down.
    func stop() async
}

extension EventProcessor {
    public func start(storage: any ProcessorStorage, logger: any Logging, emitter: any EventSending) async {}
    public func stop() async {}
}

/// Errors a processor throws to end an event's trip through the pipeline.
public enum ProcessorError: Error, Sendable {
    /// The event is dropped on purpose and counted as filtered.
    case eventFiltered
    /// The processor failed; the event is dropped, counted as failed and logged.
    case processingFailed(underlying: any Error)
}
