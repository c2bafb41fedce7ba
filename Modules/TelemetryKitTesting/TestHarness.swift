public import TelemetryKit

/// A started client wired for tests: in-memory cache, spy transmitter, manual clock and a
/// recording logger.
///
/// ```swift
/// let harness = await TestHarness.make(processors: [ABTestProcessor(variant: "B")])
/// harness.client.event("Screen.shown")
/// await harness.client.flush()
/// #expect(harness.spy.deliveredEvents.map(\.type) == ["Screen.shown"])
/// ```
public struct TestHarness: Sendable {
    public let client: TelemetryClient
    public let spy: SpyEventTransmitter
    public let cache: InMemoryEventCache
    public let clock: ManualClock
    public let logger: RecordingLogger
    public let storage: any ProcessorStorage

    /// The id of the harness's destination.
    public static let destinationID = "spy"

    /// Builds and starts a client.
    ///
    /// - Parameters:
    ///   - appID: the app id of the events.
    ///   - salt: appended to user identifiers before hashing.
    ///   - processors: the pipeline.
    ///   - transformations: client-level transformations.
    ///   - storage: processor storage (default: a fresh in-memory storage).
    ///   - policy: the spy destination's delivery policy.
    ///   - clock: the client's clock; advance it to move timers and sessions along.
    ///   - preStartBufferLimit: events kept before `start()`.
    ///   - start: whether to call `start()` (default true).
    /// - Returns: the harness, started unless `start` is false.
    public static func make(
        appID: String = "TEST-APP",
        salt: String = "",
        processors: [any EventProcessor] = [],
        transformations: [any EventTransformation] = [],
        storage: (any ProcessorStorage)? = nil,
        policy: DeliveryPolicy = DeliveryPolicy(flushInterval: 3600, backoff: BackoffPolicy(jitter: 0)),
        clock: ManualClock = ManualClock(),
        preStartBufferLimit: Int = 1000,
        start: Bool = true
    ) async -> TestHarness {
        let spy = SpyEventTransmitter()
        let cache = InMemoryEventCache(cacheLimit: 1_000_000)
        let logger = RecordingLogger()
        let storage = storage ?? InMemoryProcessorStorage()
        let client = TelemetryClient(
            configuration: .init(appID: appID, salt: salt, preStartBufferLimit: preStartBufferLimit),
            processors: processors,
            destinations: [Destination(id: destinationID, transmitter: spy, cache: cache, policy: policy)],
            transformations: transformations,
            storage: storage,
            logger: logger,
            clock: clock
        )
        if start {
            await client.start()
        }
        return TestHarness(client: client, spy: spy, cache: cache, clock: clock, logger: logger, storage: storage)
    }
}
