import TelemetryKit

/// Adds one constant parameter.
struct ConstantProcessor: EventProcessor {
    let key: String
    let value: String

    func process(
        _ input: EventInput,
        context: EventContext,
        next: @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event {
        var context = context
        context.addParameter(key, value: value)
        return try await next(input, context)
    }
}

/// Records the order in which processors run, in a shared log.
struct OrderRecordingProcessor: EventProcessor {
    let name: String
    let log: Locked<[String]>

    func process(
        _ input: EventInput,
        context: EventContext,
        next: @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event {
        log.withLock { $0.append("process:\(name)") }
        return try await next(input, context)
    }

    func start(storage: any ProcessorStorage, logger: any Logging, emitter: any EventSending) async {
        log.withLock { $0.append("start:\(name)") }
    }

    func stop() async {
        log.withLock { $0.append("stop:\(name)") }
    }
}

struct FailingProcessor: EventProcessor {
    struct Failure: Error, CustomStringConvertible {
        var description: String { "boom" }
    }

    let failingName: String

    func process(
        _ input: EventInput,
        context: EventContext,
        next: @Sendable (EventInput, EventContext) async throws -> Event
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
