public import TelemetryKit

/// A processor that drops the events with given names (it throws
/// `ProcessorError.eventFiltered`) and passes every other event on unchanged.
///
/// ```swift
/// let harness = await TestHarness.make(processors: [FilteringProcessor(names: ["Internal.debug"])])
/// harness.client.event("Internal.debug")   // counted as filtered, never delivered
/// ```
public struct FilteringProcessor: EventProcessor {
    /// The names of the events dropped.
    public let names: Set<String>

    /// Creates a processor that drops the events named in `names`.
    public init(names: Set<String>) {
        self.names = names
    }

    public func process(
        _ input: EventInput,
        context: EventContext,
        next: nonisolated(nonsending) @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event {
        if names.contains(input.name) { throw ProcessorError.eventFiltered }
        return try await next(input, context)
    }
}
