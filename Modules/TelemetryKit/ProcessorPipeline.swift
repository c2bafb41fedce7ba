/// The processor chain, built once: `processors[0] → … → processors[n-1] → finalizer`.
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
    private let chain: Next

    public init(
        processors: [any EventProcessor],
        finalizer: EventFinalizer,
        logger: any Logging = StandardErrorLogger()
    ) {
        self.processors = processors
        self.finalizer = finalizer
        self.logger = logger
        var next: Next = { input, context in finalizer.finalize(input, context: context) }
        for processor in processors.reversed() {
            let following = next
            next = { input, context in
                try await processor.process(input, context: context, next: following)
            }
        }
        self.chain = next
    }

    /// Runs `input` through every processor and the finalizer.
    ///
    /// - Throws: ``ProcessorError/eventFiltered`` when a processor dropped the event, or
    ///   whatever a processor threw (logged as an error first).
    public func process(_ input: EventInput, context: EventContext = EventContext()) async throws -> Event {
        // No processors: finalize directly, without the chain's async closure call.
        if processors.isEmpty { return finalizer.finalize(input, context: context) }
        do {
            return try await chain(input, context)
        } catch ProcessorError.eventFiltered {
            throw ProcessorError.eventFiltered
        } catch {
            logger.log(.error, "a processor failed; the event was dropped: \(error)", eventName: input.name)
            throw error
        }
    }
}
