public import TelemetryKit

/// A processor that calls `next` unchanged: a pipeline step that costs only the step itself.
///
/// The baseline of processor benchmarks (what a processor adds beyond the pipeline and the
/// finalizer), and a filler where a test needs a processor that changes nothing.
public struct PassThroughProcessor: EventProcessor {
    /// Creates the processor.
    public init() {}

    public func process(
        _ input: EventInput,
        context: EventContext,
        next: nonisolated(nonsending) @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event {
        try await next(input, context)
    }
}
