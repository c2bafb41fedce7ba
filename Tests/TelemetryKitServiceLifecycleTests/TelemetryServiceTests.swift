#if ServiceLifecycle
import Logging
import ServiceLifecycle
import TelemetryKit
import TelemetryKitServiceLifecycle
import TelemetryKitSupport
import TelemetryKitTesting
import Testing

/// A processor that reports its start and counts its stops.
final class LifecycleProbe: EventProcessor {
    let started: AsyncStream<Void>
    private let startedContinuation: AsyncStream<Void>.Continuation
    let stops = Locked(0)

    init() {
        (started, startedContinuation) = AsyncStream.makeStream(of: Void.self)
    }

    func process(
        _ input: EventInput,
        context: EventContext,
        next: nonisolated(nonsending) @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event {
        try await next(input, context)
    }

    func start(storage: any ProcessorStorage, logger: any Logging, emitter: any EventSending) async {
        startedContinuation.yield()
    }

    func stop() async {
        stops.withLock { $0 += 1 }
    }

    /// Waits until `start` ran.
    func waitUntilStarted() async {
        var iterator = started.makeAsyncIterator()
        _ = await iterator.next()
    }
}

/// A server stand-in that sends one last event while it shuts down.
struct StoppingServer: Service {
    let client: TelemetryClient

    func run() async throws {
        try? await gracefulShutdown()
        client.event("Server.stopping")
    }
}

@Suite("TelemetryService in a ServiceGroup")
struct TelemetryServiceTests {
    private static func client(
        probe: LifecycleProbe,
        transmitter: SpyEventTransmitter,
        cache: InMemoryEventCache,
        shutdownTimeout: Double = 5
    ) -> TelemetryClient {
        TelemetryClient(
            configuration: .init(appID: "SERVER-APP", shutdownTimeout: shutdownTimeout),
            processors: [probe],
            destinations: [
                Destination(
                    id: "ingest",
                    transmitter: transmitter,
                    cache: cache,
                    policy: DeliveryPolicy(flushInterval: 3600, backoff: BackoffPolicy(jitter: 0))
                )
            ],
            storage: InMemoryProcessorStorage(),
            logger: RecordingLogger(),
            clock: ManualClock()
        )
    }

    @Test(.timeLimit(.minutes(1)))
    func gracefulShutdownDeliversTheQueueAndStopsTheClient() async throws {
        let probe = LifecycleProbe()
        let spy = SpyEventTransmitter()
        let client = Self.client(probe: probe, transmitter: spy, cache: InMemoryEventCache())
        let group = ServiceGroup(services: [TelemetryService(client: client)], logger: Logger(label: "test"))

        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            await probe.waitUntilStarted()
            client.event("Request.handled", parameters: ["path": "/"])
            client.event("Request.handled", parameters: ["path": "/health"])
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }

        #expect(spy.deliveredEvents.map { $0.payload["path"] } == [.string("/"), .string("/health")])
        #expect(probe.stops.current == 1)
        // Stopped: later events are not processed.
        client.event("After.shutdown")
        await client.flush()
        #expect(spy.deliveredEvents.count == 2)
    }

    @Test(.timeLimit(.minutes(1)))
    func listedFirstItStopsLastAndDeliversTheOtherServicesLastEvents() async throws {
        let probe = LifecycleProbe()
        let spy = SpyEventTransmitter()
        let client = Self.client(probe: probe, transmitter: spy, cache: InMemoryEventCache())
        let group = ServiceGroup(
            services: [TelemetryService(client: client), StoppingServer(client: client)],
            logger: Logger(label: "test")
        )

        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            await probe.waitUntilStarted()
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }

        #expect(spy.deliveredEvents.map(\.type) == ["Server.stopping"])
        #expect(probe.stops.current == 1)
    }

    @Test(.timeLimit(.minutes(1)))
    func cancellationShutsTheClientDownAllTheSame() async throws {
        let probe = LifecycleProbe()
        let spy = SpyEventTransmitter()
        let client = Self.client(probe: probe, transmitter: spy, cache: InMemoryEventCache())
        let group = ServiceGroup(services: [TelemetryService(client: client)], logger: Logger(label: "test"))

        let running = Task { try await group.run() }
        await probe.waitUntilStarted()
        client.event("Job.finished")
        running.cancel()
        _ = await running.result

        #expect(spy.deliveredEvents.map(\.type) == ["Job.finished"])
        #expect(probe.stops.current == 1)
    }

    @Test(.timeLimit(.minutes(1)))
    func whatCannotBeSentStaysInTheCache() async throws {
        let probe = LifecycleProbe()
        let spy = SpyEventTransmitter()
        spy.respond { _ in .retry(after: nil) }
        let cache = InMemoryEventCache()
        // No time for a retry: the final delivery gives up at once.
        let client = Self.client(probe: probe, transmitter: spy, cache: cache, shutdownTimeout: 0)
        let group = ServiceGroup(services: [TelemetryService(client: client)], logger: Logger(label: "test"))

        try await withThrowingTaskGroup(of: Void.self) { tasks in
            tasks.addTask { try await group.run() }
            await probe.waitUntilStarted()
            client.event("Offline.event")
            await group.triggerGracefulShutdown()
            try await tasks.waitForAll()
        }

        #expect(spy.deliveredEvents.isEmpty)
        #expect(try await cache.peek(limit: 10).map(\.type) == ["Offline.event"])
        #expect(probe.stops.current == 1)
    }
}
#endif
