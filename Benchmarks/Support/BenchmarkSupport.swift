public import Benchmark
import Foundation
import Synchronization
public import TelemetryKit
import TelemetryKitDefaults
import TelemetryKitSQLiteCache
import TelemetryKitTesting

#if canImport(Glibc)
import Glibc
#endif

// Shared by the benchmark suites: one copy of the helpers every suite needs.

extension BenchmarkThresholds {
    /// The tolerance of the committed thresholds (Benchmarks/Thresholds), which CI checks for
    /// the allocations per event: they do not drift with the machine's speed, as times do, so
    /// a change beyond 5 % is a change of the code.
    public static var allocations: BenchmarkThresholds {
        BenchmarkThresholds(relative: [.p90: 5.0])
    }
}

extension Benchmark.Configuration {
    /// Per-event benchmarks: wall clock, throughput and mallocs, 1,000 iterations per sample.
    public static var perEvent: Benchmark.Configuration {
        .init(
            metrics: [.wallClock, .throughput, .mallocCountTotal],
            warmupIterations: 100,
            scalingFactor: .kilo,
            maxDuration: .seconds(2),
            thresholds: [.mallocCountTotal: .allocations]
        )
    }

    /// Per-event benchmarks whose every event waits for a durable cache's fsync (hundreds of
    /// microseconds or more): one event per sample. From the main actor a sample includes one
    /// hop onto it and back (about 10 µs), small next to the fsync.
    public static var perDurableAppend: Benchmark.Configuration {
        .init(
            metrics: [.wallClock, .throughput, .mallocCountTotal],
            warmupIterations: 10,
            scalingFactor: .one,
            maxDuration: .seconds(3),
            thresholds: [.mallocCountTotal: .allocations]
        )
    }
}

/// The folder every benchmark's files go in, one per process, removed when the process ends:
/// long-lived clients keep their caches open until then, so a suite cannot remove them itself
/// (a folder per run was left behind before, up to 19 MB each).
public let benchmarkScratchDirectory: URL = {
    let directory = FileManager.default.temporaryDirectory
        .appendingPathComponent("telemetrykit-bench-\(UUID().uuidString)", isDirectory: true)
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(at: benchmarkScratchDirectory) }
    return directory
}()

/// A new directory path inside ``benchmarkScratchDirectory`` (not created).
public func temporaryBenchmarkDirectory() -> URL {
    benchmarkScratchDirectory.appendingPathComponent(UUID().uuidString, isDirectory: true)
}

/// A SQLiteEventCache (the default durable cache) keeping up to `limit` events, in a new
/// directory inside ``benchmarkScratchDirectory`` (the caller may remove it sooner).
public func temporarySQLiteCache(limit: Int = 1_000_000) throws -> (cache: SQLiteEventCache, directory: URL) {
    let directory = temporaryBenchmarkDirectory()
    let cache = try SQLiteEventCache(
        fileURL: directory.appendingPathComponent("events.sqlite"),
        limit: limit,
        logger: SilentLogger()
    )
    return (cache, directory)
}

/// The finalizer the processor benchmarks chain their processors to.
public let benchmarkFinalizer = EventFinalizer(appID: "BENCH-APP", salt: "salt", logger: SilentLogger())

/// The input most per-event benchmarks send.
public let screenShownInput = EventInput("Screen.shown", parameters: ["screen": "home", "count": 3])

/// A purchase's parameters: a few app values and one SDK key.
public let purchasePayload: [String: PayloadValue] = [
    "total": 19.99, "items": 3, "coupon": "SPRING24", "currency": "EUR", "screen": "checkout",
    "email": "ada@example.com", "plan": "pro", "TelemetryDeck.Device.platform": "Linux",
]

/// A finalized event of `type` with `payload`, as transformations and transmitters see it.
public func benchmarkEvent(_ type: String, payload: [String: PayloadValue]) -> Event {
    Event(
        appID: "BENCH-APP",
        type: type,
        clientUser: String(repeating: "a", count: 64),
        sessionID: UUID().uuidString,
        receivedAt: Date(),
        payload: payload
    )
}

/// An emitter that drops what processors emit: the benchmarks measure the event path only.
public struct DiscardingEmitter: EventSending {
    public init() {}
    public func send(_ input: EventInput) async {}
}

/// The process's resident memory in bytes (Linux: /proc/self/statm), or nil elsewhere.
public func residentMemoryBytes() -> Int? {
    #if os(Linux)
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
    let fields = statm.split(separator: " ")
    guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
    return pages * sysconf(Int32(_SC_PAGESIZE))
    #else
    return nil
    #endif
}

/// Appends `count` events made by `make` to `cache`, 100 per call, and returns the growth of
/// resident memory per queued event; nil where memory cannot be read, or when the cache did
/// not keep every event.
public func residentBytesPerEvent(
    in cache: any EventCaching,
    count: Int,
    make: (Int) async throws -> Event
) async throws -> Int? {
    guard let before = residentMemoryBytes() else { return nil }
    var batch: [Event] = []
    batch.reserveCapacity(100)
    for number in 0..<count {
        batch.append(try await make(number))
        if batch.count == 100 {
            try await cache.append(batch)
            batch.removeAll(keepingCapacity: true)
        }
    }
    try await cache.append(batch)
    guard let after = residentMemoryBytes() else { return nil }
    let queued = await cache.count()
    guard queued == count else {
        print("The cache holds \(queued) of \(count) events: no memory reading.")
        return nil
    }
    return (after - before) / count
}

/// ``residentBytesPerEvent(in:count:make:)`` for an InMemoryEventCache that holds them all.
public func inMemoryBytesPerEvent(count: Int, make: (Int) async throws -> Event) async throws -> Int? {
    try await residentBytesPerEvent(in: InMemoryEventCache(cacheLimit: count), count: count, make: make)
}

/// ``residentBytesPerEvent(in:count:make:)`` for a fresh SQLiteEventCache in a temporary
/// directory (removed afterwards).
public func sqliteBytesPerEvent(count: Int, make: (Int) async throws -> Event) async throws -> Int? {
    let (cache, directory) = try temporarySQLiteCache(limit: count)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try await residentBytesPerEvent(in: cache, count: count, make: make)
}

/// Registers the four client rows of one pipeline, named `"<label>: …"`: an awaited `send`
/// and fire-and-forget events drained (total), each from the main actor and from a task off
/// it, into `steady`'s cache. `awaitedConfiguration` replaces the default configuration for
/// the awaited rows (e.g. ``Benchmark/Configuration/perDurableAppend`` when each waits for
/// an fsync).
///
/// `input` is evaluated for every event sent (see ``SteadyClient/measurePipelined(_:input:)``).
public func registerClientBenchmarks(
    _ label: String,
    _ steady: SteadyClient,
    input: @autoclosure @escaping @Sendable () -> EventInput,
    awaitedConfiguration: Benchmark.Configuration = Benchmark.defaultConfiguration
) {
    Benchmark("\(label): awaited send (main actor)", configuration: awaitedConfiguration) { benchmark in
        try await steady.measureAwaitedOnMainActor(benchmark, input: input())
    }
    Benchmark("\(label): awaited send (detached task)", configuration: awaitedConfiguration) { benchmark in
        try await steady.measureAwaited(benchmark, input: input())
    }
    Benchmark("\(label): fire-and-forget, total (main actor)") { benchmark in
        try await steady.measurePipelinedOnMainActor(benchmark, input: input())
    }
    Benchmark("\(label): fire-and-forget, total (detached task)") { benchmark in
        try await steady.measurePipelined(benchmark, input: input())
    }
}

/// `processors` started (in-memory storage, discarding emitter) and chained before a finalizer.
public func startedPipeline(_ processors: [any EventProcessor], appID: String = "BENCH-APP") async -> ProcessorPipeline
{
    let storage = InMemoryProcessorStorage()
    for processor in processors {
        await processor.start(storage: storage, logger: SilentLogger(), emitter: DiscardingEmitter())
    }
    return ProcessorPipeline(processors: processors, finalizer: EventFinalizer(appID: appID, logger: SilentLogger()))
}

/// A long-lived client with one destination (by default an in-memory cache, and a spy that
/// is never flushed), started on first use and kept for every sample: the benchmarks measure
/// the steady state, not start-up. The cache is emptied between samples, outside the
/// measurement.
public final class SteadyClient: Sendable {
    public let client: TelemetryClient
    private let cache: any EventCaching
    private let started = Mutex(false)

    public init(
        processors: [any EventProcessor] = [],
        transformations: [any EventTransformation] = [],
        cache: any EventCaching = InMemoryEventCache(cacheLimit: 1_000_000)
    ) {
        self.cache = cache
        client = TelemetryClient(
            configuration: .init(appID: "BENCH-APP"),
            processors: processors,
            destinations: [
                Destination(
                    id: "spy",
                    transmitter: SpyEventTransmitter(),
                    cache: cache,
                    policy: DeliveryPolicy(flushInterval: 86_400)
                )
            ],
            transformations: transformations,
            storage: InMemoryProcessorStorage(),
            logger: SilentLogger()
        )
    }

    /// Starts the client once and empties its cache when it has grown large.
    private func prepare() async throws {
        let first = started.withLock { started in
            defer { started = true }
            return !started
        }
        if first { await client.start() }
        if await cache.count() > 20_000 { try await cache.removeAll() }
    }

    /// Per event: fire-and-forget `event(input)` calls from a task off the main actor, then
    /// waiting until all are cached.
    ///
    /// `input` is evaluated for every event, as an app's `event("Name", parameters: …)` makes
    /// a new input: pass an input made once (a variable) to measure the SDK alone, or an
    /// `EventInput(…)` expression where the event's time matters. A durable cache indexes its
    /// events by id, and an id starts with its event's millisecond: events made at one
    /// instant get ids in random order, which land on random pages of that index (about 45
    /// index pages written per commit instead of one).
    public func measurePipelined(_ benchmark: Benchmark, input: @autoclosure @Sendable () -> EventInput) async throws {
        try await prepare()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            client.event(input())
        }
        await client.waitUntilProcessed()
        benchmark.stopMeasurement()
    }

    /// Per event: one awaited `send(input)` round trip, from a task off the main actor.
    public func measureAwaited(_ benchmark: Benchmark, input: @autoclosure @Sendable () -> EventInput) async throws {
        try await prepare()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            await client.send(input())
        }
        benchmark.stopMeasurement()
    }

    /// Per event: one awaited `send(input)` round trip from main-actor code (top-level code,
    /// a SwiftUI `.task`, a `@MainActor` view model), where apps call it.
    public func measureAwaitedOnMainActor(
        _ benchmark: Benchmark,
        input: @autoclosure @escaping @Sendable () -> EventInput
    ) async throws {
        try await measureOnMainActor(benchmark) { [client] count in
            for _ in 0..<count {
                await client.send(input())
            }
        }
    }

    /// Per event: fire-and-forget `event(input)` calls made on the main actor, then waiting
    /// (there) until all are cached: the whole cost, most of it on the intake task.
    public func measurePipelinedOnMainActor(
        _ benchmark: Benchmark,
        input: @autoclosure @escaping @Sendable () -> EventInput
    ) async throws {
        try await measureOnMainActor(benchmark) { [client] count in
            for _ in 0..<count {
                client.event(input())
            }
            await client.waitUntilProcessed()
        }
    }

    /// Measures `body` run once on the main actor with the sample's iteration count. The
    /// measurement includes one hop onto the main actor and back per sample (1,000 events):
    /// `Benchmark` is not `Sendable`, so the main actor cannot start and stop it itself.
    private func measureOnMainActor(
        _ benchmark: Benchmark,
        _ body: @escaping @MainActor @Sendable (Int) async -> Void
    ) async throws {
        try await prepare()
        let count = benchmark.scaledIterations.count
        benchmark.startMeasurement()
        await body(count)
        benchmark.stopMeasurement()
    }

    /// Per event: the caller's side of `event(name, parameters:)` only.
    public func measureCallerSide(_ benchmark: Benchmark, name: String, parameters: EventParameters) async throws {
        try await prepare()
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            client.event(name, parameters: parameters)
        }
        benchmark.stopMeasurement()
        await client.waitUntilProcessed()
    }
}

/// `count` events as the default pipeline finalizes them: realistic payloads (~40 parameters).
public func defaultPipelineEvents(count: Int) async throws -> [Event] {
    let config = Telemetry.Config(appID: "BENCH-APP", namespace: "bench", appVersion: "2.4.1", buildNumber: "412")
    let pipeline = await startedPipeline(Telemetry.defaultProcessors(for: config))
    let screens = ["home", "settings", "profile", "checkout", "search"]
    var events: [Event] = []
    for index in 0..<count {
        let input = EventInput(
            "Screen.shown",
            parameters: ["screen": screens[index % screens.count], "index": index, "isReturningVisit": index % 3 == 0],
            floatValue: Double(index % 100) / 10
        )
        events.append(try await pipeline.process(input))
    }
    return events
}
