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
    public typealias Next = nonisolated(nonsending) @Sendable (EventInput, EventContext) async throws -> Event

    public let processors: [any EventProcessor]
    public let finalizer: EventFinalizer
    /// Where a processor's failure is reported (with the event's name) before it is rethrown.
    public let logger: any Logging

    /// The synchronous processors' `process(_:context:)`, found once: nil for a processor
    /// whose async path runs.
    private let synchronousPaths: [SynchronousPath?]

    public init(
        processors: [any EventProcessor],
        finalizer: EventFinalizer,
        logger: any Logging = StandardErrorLogger()
    ) {
        self.processors = processors
        self.finalizer = finalizer
        self.logger = logger
        self.synchronousPaths = processors.map { processor in
            (processor as? any SynchronousEventProcessor).map { Self.synchronousPath(of: $0) }
        }
    }

    private typealias SynchronousPath = @Sendable (inout EventInput, inout EventContext) throws -> Void

    /// Why a closure per processor instead of a call on the array's element: a call on an
    /// existential (`any EventProcessor`) stored in an array copies it first (a retain of each
    /// reference the processor holds, and a release after), once per processor and event. A
    /// closure holds its processor where nothing can change it, so the call uses it in place.
    private static func synchronousPath<Processor: SynchronousEventProcessor>(
        of processor: Processor
    )
        -> SynchronousPath
    {
        { input, context in try processor.process(&input, context: &context) }
    }

    /// Runs `input` through every processor and the finalizer.
    ///
    /// A pipeline of `SynchronousEventProcessor`s makes no async call: awaited from the main
    /// actor it does not leave it (`nonisolated(nonsending)`).
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
            return try await Self.run(processors, synchronousPaths, from: 0, input, context, finalizer)
        } catch ProcessorError.eventFiltered {
            throw ProcessorError.eventFiltered
        } catch {
            logger.log(.error, "a processor failed; the event was dropped: \(error)", eventName: input.name)
            throw error
        }
    }

    /// Runs `processors[start...]` and the finalizer: synchronous processors in a loop, and
    /// the first asynchronous one with the rest of the pipeline as its `next`.
    nonisolated(nonsending)
        private static func run(
            _ processors: [any EventProcessor],
            _ synchronousPaths: [SynchronousPath?],
            from start: Int,
            _ input: EventInput,
            _ context: EventContext,
            _ finalizer: EventFinalizer
        ) async throws -> Event
    {
        var input = input
        var context = context
        var index = start
        while index < synchronousPaths.count {
            guard let synchronousPath = synchronousPaths[index] else {
                let following = index + 1
                return try await processors[index].process(input, context: context) { input, context in
                    try await run(processors, synchronousPaths, from: following, input, context, finalizer)
                }
            }
            try synchronousPath(&input, &context)
            index += 1
        }
        return finalizer.finalize(input, context: context)
    }
}
