import Benchmark
import TelemetryKit
import TelemetryKitInMemoryStorage
import TelemetryKitTesting

/// A processor that adds one constant parameter, like the simplest real processor.
struct TrivialProcessor: EventProcessor {
    let key: String

    func process(
        _ input: EventInput,
        context: EventContext,
        next: @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event {
        var context = context
        context.addParameter(key, value: true)
        return try await next(input, context)
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 100,
        scalingFactor: .kilo,
        maxDuration: .seconds(2)
    )

    let finalizer = EventFinalizer(appID: "BENCH-APP", salt: "salt", logger: SilentLogger())
    let input = EventInput("Screen.shown", parameters: ["screen": "home", "count": 3])

    Benchmark("Pipeline, 0 processors") { benchmark in
        let pipeline = ProcessorPipeline(processors: [], finalizer: finalizer)
        for _ in benchmark.scaledIterations {
            blackHole(try await pipeline.process(input))
        }
    }

    Benchmark("Pipeline, 10 trivial processors") { benchmark in
        let processors: [any EventProcessor] = (0..<10).map { TrivialProcessor(key: "Trivial.key\($0)") }
        let pipeline = ProcessorPipeline(processors: processors, finalizer: finalizer)
        for _ in benchmark.scaledIterations {
            blackHole(try await pipeline.process(input))
        }
    }

    Benchmark("Finalizer") { benchmark in
        var context = EventContext(userIdentifier: "user-42", isTestMode: false)
        context.addParameters(["TelemetryDeck.Device.platform": "Linux", "TelemetryDeck.Device.architecture": "x86_64"])
        for _ in benchmark.scaledIterations {
            blackHole(finalizer.finalize(input, context: context))
        }
    }

    Benchmark("TelemetryClient.send, 0 processors, in-memory cache") { benchmark in
        let client = makeClient()
        await client.start()
        let input = EventInput("Screen.shown", parameters: ["screen": "home"])
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            await client.send(input)
        }
        benchmark.stopMeasurement()
        await client.shutdown()
    }

    Benchmark("TelemetryClient, 0 processors, event → in-memory cache (per event, pipelined)") { benchmark in
        let client = makeClient()
        await client.start()
        let input = EventInput("Screen.shown", parameters: ["screen": "home"])
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            client.event(input)
        }
        await client.waitUntilProcessed()
        benchmark.stopMeasurement()
        await client.shutdown()
    }

    Benchmark("TelemetryClient.event, caller side (fire-and-forget)") { benchmark in
        let client = makeClient()
        await client.start()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            client.event("Screen.shown", parameters: ["screen": "home"])
        }
        benchmark.stopMeasurement()
        await client.waitUntilProcessed()
        await client.shutdown()
    }
}

/// A client with one destination: an in-memory cache and a spy that is never flushed.
func makeClient() -> TelemetryClient {
    TelemetryClient(
        configuration: .init(appID: "BENCH-APP"),
        destinations: [
            Destination(
                id: "spy",
                transmitter: SpyEventTransmitter(),
                cache: InMemoryEventCache(limit: 10_000),
                policy: DeliveryPolicy(flushInterval: 86_400)
            )
        ],
        storage: InMemoryProcessorStorage(),
        logger: SilentLogger()
    )
}
