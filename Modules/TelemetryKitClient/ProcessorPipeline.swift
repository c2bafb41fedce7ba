/// The processor chain: `processors[0] → … → processors[n-1] → finalizer`.
///
/// Public so benchmarks and plugin tests can run processors without a client.
///
/// ```swift
/// let pipeline = ProcessorPipeline(processors: [ABTestProcessor(variant: "B")],
///                                  finalizer: EventFinalizer(appID: "APP"))
/// let event = try await pipeline.process(EventInput("Screen.shown"))
/// ```
public struct ProcessorPipeline: Sendable {
    public typealias Next = @Sendable (EventInput, EventContext) async throws -> Event

    public let processors: [any EventProcessor]
    public let finalizer: EventFinalizer
    /// Where a processor's failure is reported (with the event's name) before it is rethrown.
    public let logger: any Logging

    public init(
        processors: [any EventProcessor],
        finalizer: EventFinalizer,
        logger: any Logging = StandardErrorLogger()
    ) {
        self.processors = processors
        self.finalizer = finalizer
        self.logger = logger
    }

    /// Runs `input` through every processor and the finalizer.
    ///
    /// Each processor's synchronous path (`EventProcessor.processImmediately(_:context:)`)
    /// is tried first, so a pipeline of `SynchronousEventProcessor`s makes no async call:
    /// awaited from the main actor it does not leave it (`nonisolated(nonsending)`).
    ///
    /// - Throws: `ProcessorError.eventFiltered` when a processor dropped the event, or
    ///   whatever a processor threw (logged as an error first).
    nonisolated(nonsending)
        public func process(_ input: EventInput, context: EventContext = EventContext()) async throws -> Event
    {
        var context = context
        // Room for a fragment per processor: the context's list does not grow step by step.
        if context.fragments.capacity < processors.count {
            context.fragments.reserveCapacity(processors.count)
        }
        do {
            return try await Self.run(processors, from: 0, input, context, finalizer)
        } catch ProcessorError.eventFiltered {
            throw ProcessorError.eventFiltered
        } catch {
            logger.log(.error, "a processor failed; the event was dropped: \(error)", eventName: input.name)
            throw error
        }
    }

    /// Runs `processors[start...]` and the finalizer: synchronous paths in a loop, and the
    /// first processor that needs its async path with the rest of the pipeline as its `next`.
    nonisolated(nonsending)
        private static func run(
            _ processors: [any EventProcessor],
            from start: Int,
            _ input: EventInput,
            _ context: EventContext,
            _ finalizer: EventFinalizer
        ) async throws -> Event
    {
        var input = input
        var context = context
        var index = start
        // By index: the elements are used in place (iterating would copy each existential).
        while index < processors.count {
            switch try processors[index].processImmediately(&input, context: &context) {
            case .continued:
                index += 1
            case .needsAsync:
                let following = index + 1
                return try await processors[index].process(input, context: context) { input, context in
                    try await run(processors, from: following, input, context, finalizer)
                }
            }
        }
        return finalizer.finalize(input, context: context)
    }
}
