public import TelemetryKit

/// A processor that adds one constant parameter to every event's context, then continues.
///
/// The smallest enriching processor: it stands for an SDK processor (device, app info) when a
/// test checks what the pipeline does with metadata — its order against event parameters,
/// prefixes, removal by a later processor — and it is the unit of the pipeline benchmarks.
///
/// ```swift
/// let pipeline = ProcessorPipeline(
///     processors: [ParameterAddingProcessor(key: "Device.kind", value: "server")],
///     finalizer: .test
/// )
/// let event = try await pipeline.process(EventInput("Screen.shown"))
/// // event.payload == ["Device.kind": "server"]
/// ```
public struct ParameterAddingProcessor: EventProcessor {
    /// The parameter's key.
    public let key: String
    /// The value added under ``key``.
    public let value: PayloadValue

    /// Creates a processor that adds `value` under `key`.
    public init(key: String, value: PayloadValue) {
        self.key = key
        self.value = value
    }

    public func process(
        _ input: EventInput,
        context: EventContext,
        next: nonisolated(nonsending) @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event {
        var context = context
        context.addParameter(key, value: value)
        return try await next(input, context)
    }
}
