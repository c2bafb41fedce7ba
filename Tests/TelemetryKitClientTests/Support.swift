import TelemetryKit

/// Throws for the events with one name: a processor that fails, not one that filters.
struct FailingProcessor: EventProcessor {
    struct Failure: Error, CustomStringConvertible {
        var description: String { "boom" }
    }

    let failingName: String

    func process(
        _ input: EventInput,
        context: EventContext,
        next: nonisolated(nonsending) @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event {
        if input.name == failingName { throw Failure() }
        return try await next(input, context)
    }
}

extension Event {
    /// The `n` parameter of numbered test events.
    var number: Int64? {
        if case .int(let value) = payload["n"] { return value }
        return nil
    }
}
