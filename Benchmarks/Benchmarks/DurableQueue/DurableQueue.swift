import Benchmark
import BenchmarkSupport
import Foundation
import Synchronization
import TelemetryKitDefaults
import TelemetryKitJSONLinesCache
import TelemetryKitTesting

// The default durable queue as an app meets it (issue 27): the disk it takes per queued
// event, what `Telemetry.initialize` costs with an empty data directory and with 10,000
// events queued by an earlier run, and events into each durable cache, awaited and
// fire-and-forget, through a client with the 13 default processors.

/// The facade's configuration with `directory` as its data directory and an ingest that
/// refuses connections, so queued events stay queued.
func unreachableConfig(dataDirectory directory: URL) -> Telemetry.Config {
    var config = Telemetry.Config(
        appID: "BENCH-APP",
        namespace: "bench",
        apiBaseURL: URL(string: "http://127.0.0.1:9")!,
        appVersion: "1.0",
        buildNumber: "1",
        dataDirectory: directory
    )
    config.allowInsecureHTTP = true
    config.shutdownTimeout = 0.2
    return config
}

/// The data directory an earlier run of the app left, with `count` events queued.
func dataDirectoryWithQueuedEvents(_ count: Int) async throws -> URL {
    let directory = temporaryBenchmarkDirectory()
    try await Telemetry.initialize(configuration: unreachableConfig(dataDirectory: directory), logger: SilentLogger())
    for number in 0..<count {
        Telemetry.signal("Screen.shown", parameters: ["screen": "home", "count": number, "ratio": 0.5])
    }
    await Telemetry.client?.waitUntilProcessed()
    await Telemetry.terminate()
    return directory
}

/// The bytes of every file in `directory` (the database and its log, storage).
func directoryBytes(_ directory: URL, matching prefix: String) -> Int {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.filter { $0.hasPrefix(prefix) }.reduce(0) { total, name in
        let path = directory.appendingPathComponent(name).path
        return total + ((try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0)
    }
}

/// The environment variable that makes this executable a child process of the
/// "new process" benchmark: it runs one `Telemetry.initialize` on the data directory named
/// there, writes the microseconds it took to standard output and exits.
let initializeInChildVariable = "TELEMETRYKIT_BENCH_INITIALIZE_DIRECTORY"

/// The child's side (see ``initializeInChildVariable``). Blocks the main thread while the
/// measured task runs on the cooperative pool: `initialize` does not need the main actor on
/// Linux, and nothing else runs in this process.
func initializeInChildAndExit(dataDirectory: String) -> Never {
    let result = Mutex<Int?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let clock = ContinuousClock()
        let start = clock.now
        try? await Telemetry.initialize(
            configuration: unreachableConfig(dataDirectory: URL(fileURLWithPath: dataDirectory)),
            logger: SilentLogger()
        )
        let elapsed = clock.now - start
        let (seconds, attoseconds) = elapsed.components
        result.withLock { $0 = Int(seconds) * 1_000_000 + Int(attoseconds / 1_000_000_000_000) }
        done.signal()
    }
    done.wait()
    print(result.withLock { $0 } ?? -1)
    exit(0)
}

/// `Telemetry.initialize` in a process of its own, on a copy of `template`: what an app's
/// launch meets, with SQLite, the SDK's statics and the files cold to the process; returns
/// the microseconds the child measured around `initialize` alone.
func initializeInNewProcess(copying template: URL) throws -> Int {
    let directory = temporaryBenchmarkDirectory()
    try FileManager.default.copyItem(at: template, to: directory)
    defer { try? FileManager.default.removeItem(at: directory) }
    let child = Process()
    child.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    var environment = ProcessInfo.processInfo.environment
    environment[initializeInChildVariable] = directory.path
    child.environment = environment
    let output = Pipe()
    child.standardOutput = output
    try child.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    child.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    guard child.terminationStatus == 0, let microseconds = Int(text.split(separator: "\n").last ?? ""),
        microseconds >= 0
    else {
        throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "child said: \(text)"])
    }
    return microseconds
}

let benchmarks: @Sendable () -> Void = {
    if let directory = ProcessInfo.processInfo.environment[initializeInChildVariable] {
        initializeInChildAndExit(dataDirectory: directory)
    }
    Benchmark.defaultConfiguration = .perEvent
    let config = Telemetry.Config(appID: "BENCH-APP", namespace: "bench", appVersion: "1.0", buildNumber: "1")

    // Disk per queued event: 10,000 events of the default pipeline (about 50 metadata entries
    // and 3 parameters each) in each durable cache, once the cache rests (SQLite: log
    // checkpointed and truncated), files included whole.
    let diskPerEvent = BenchmarkMetric.custom(
        "disk bytes per event",
        polarity: .prefersSmaller,
        useScalingFactor: false
    )
    let once = Benchmark.Configuration(
        metrics: [diskPerEvent],
        warmupIterations: 0,
        scalingFactor: .one,
        maxDuration: .seconds(60),
        maxIterations: 1,
        thresholds: [:]  // not the per-event default's: no allocations measured
    )
    func diskBenchmark(_ name: String, fileName: String, make: @escaping @Sendable (URL) throws -> any EventCaching) {
        Benchmark("Disk per queued event, 10,000 default-pipeline events: \(name)", configuration: once) { benchmark in
            let directory = temporaryBenchmarkDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let cache = try make(directory.appendingPathComponent(fileName))
            let pipeline = await startedPipeline(Telemetry.defaultProcessors(for: config))
            for start in stride(from: 0, to: 10_000, by: 500) {
                var events: [Event] = []
                for number in start..<(start + 500) {
                    events.append(
                        try await pipeline.process(
                            EventInput("Screen.shown", parameters: ["screen": "home", "count": number, "ratio": 0.5])
                        )
                    )
                }
                try await cache.append(events)
            }
            // At rest: the SQLite cache checkpoints half a second after the last write.
            try await Task.sleep(for: .seconds(1.5))
            benchmark.measurement(diskPerEvent, directoryBytes(directory, matching: fileName) / 10_000)
            blackHole(cache)
        }
    }
    diskBenchmark("SQLiteEventCache", fileName: "events.sqlite") { url in
        try SQLiteEventCache(fileURL: url, limit: 100_000, logger: SilentLogger())
    }
    diskBenchmark("JSONLinesEventCache", fileName: "events.jsonl") { url in
        try JSONLinesEventCache(fileURL: url, limit: 100_000, maxBytes: .max, logger: SilentLogger())
    }

    // `Telemetry.initialize` as a relaunched app meets it: a copy of a data directory that an
    // earlier run left (new to this process), default SQLite queue and plist storage, ingest
    // unreachable; `terminate` and the copy are not measured.
    let launch = Benchmark.Configuration(
        metrics: [.wallClock],
        warmupIterations: 3,
        scalingFactor: .one,
        maxDuration: .seconds(20),
        maxIterations: 60,
        thresholds: [:]  // not the per-event default's: no allocations measured
    )
    func initializeBenchmark(_ name: String, queued: Int) {
        Benchmark("Telemetry.initialize, \(name)", configuration: launch) { benchmark in
            let template = try await dataDirectoryWithQueuedEvents(queued)
            defer { try? FileManager.default.removeItem(at: template) }
            for _ in benchmark.scaledIterations {
                let directory = temporaryBenchmarkDirectory()
                try FileManager.default.copyItem(at: template, to: directory)
                benchmark.startMeasurement()
                try await Telemetry.initialize(
                    configuration: unreachableConfig(dataDirectory: directory),
                    logger: SilentLogger()
                )
                benchmark.stopMeasurement()
                await Telemetry.terminate()
                try? FileManager.default.removeItem(at: directory)
            }
        }
    }
    initializeBenchmark("empty data directory", queued: 0)
    initializeBenchmark("10,000 events queued", queued: 10_000)

    // The same in a new process each time (Linux: the child is this executable, started
    // through /proc/self/exe): the launch as an app meets it, nothing loaded or warm.
    let newProcessMicroseconds = BenchmarkMetric.custom(
        "initialize in a new process (μs)",
        polarity: .prefersSmaller,
        useScalingFactor: false
    )
    func newProcessBenchmark(_ name: String, queued: Int) {
        Benchmark(
            "Telemetry.initialize in a new process, \(name)",
            configuration: .init(
                metrics: [newProcessMicroseconds],
                warmupIterations: 0,
                scalingFactor: .one,
                maxDuration: .seconds(60),
                maxIterations: 1,
                thresholds: [:]  // not the per-event default's: no allocations measured
            )
        ) { benchmark in
            let template = try await dataDirectoryWithQueuedEvents(queued)
            defer { try? FileManager.default.removeItem(at: template) }
            for _ in 0..<25 {
                benchmark.measurement(newProcessMicroseconds, try initializeInNewProcess(copying: template))
            }
        }
    }
    #if os(Linux)
    newProcessBenchmark("empty data directory", queued: 0)
    newProcessBenchmark("10,000 events queued", queued: 10_000)
    #endif

    // The SQLite cache's share of that: opening the file, in a copy new to this process, until
    // `opened()` returns (the opening, with the check of every page, is the first job on the
    // cache's own queue; the caller's thread only creates the file).
    func openBenchmark(_ name: String, queued: Int) {
        Benchmark("SQLiteEventCache: open, \(name)", configuration: launch) { benchmark in
            let template = temporaryBenchmarkDirectory()
            defer { try? FileManager.default.removeItem(at: template) }
            let fileName = "events.sqlite"
            do {
                let cache = try SQLiteEventCache(fileURL: template.appendingPathComponent(fileName), limit: 100_000)
                let pipeline = await startedPipeline(Telemetry.defaultProcessors(for: config))
                var events: [Event] = []
                for number in 0..<queued {
                    events.append(try await pipeline.process(EventInput("Screen.shown", parameters: ["count": number])))
                }
                try await cache.append(events)
            }
            // The earlier run's connection closes (and removes the log) once its queue lets go.
            while FileManager.default.fileExists(atPath: template.appendingPathComponent(fileName + "-wal").path) {
                try await Task.sleep(for: .milliseconds(10))
            }
            for _ in benchmark.scaledIterations {
                let directory = temporaryBenchmarkDirectory()
                try FileManager.default.copyItem(at: template, to: directory)
                benchmark.startMeasurement()
                let cache = try SQLiteEventCache(
                    fileURL: directory.appendingPathComponent(fileName),
                    limit: 100_000,
                    logger: SilentLogger()
                )
                try await cache.opened()
                benchmark.stopMeasurement()
                try? FileManager.default.removeItem(at: directory)
            }
        }
    }
    openBenchmark("empty", queued: 0)
    openBenchmark("10,000 events queued", queued: 10_000)

    // Events into each durable cache through a client with the default processors. An awaited
    // send into the default SQLite cache returns once its commit is in the log (no fsync): its
    // rows measure many sends per sample, as the in-memory rows do (a sample of one send would
    // also measure the benchmark's own hop onto the main actor and back). One into the other
    // caches waits for an fsync: one send per sample.
    //
    // The first rows are the reference: the same client and input into memory, in the same
    // run. This VM's speed drifts from day to day by 2–3×, so what a durable cache adds to an
    // event is read against it, not against a figure measured on another day.
    let durableCaches: [(String, Benchmark.Configuration, () throws -> any EventCaching)] = [
        ("InMemoryEventCache (reference)", .perEvent, { InMemoryEventCache(cacheLimit: 1_000_000) }),
        ("SQLiteEventCache (default, synchronous .normal)", .perEvent, { try temporarySQLiteCache().cache }),
        (
            "SQLiteEventCache (synchronous .full)",
            .perDurableAppend,
            {
                try SQLiteEventCache(
                    fileURL: temporaryBenchmarkDirectory().appendingPathComponent("events.sqlite"),
                    limit: 1_000_000,
                    maxBytes: .max,
                    synchronous: .full,
                    logger: SilentLogger()
                )
            }
        ),
        (
            "JSONLinesEventCache",
            .perDurableAppend,
            {
                try JSONLinesEventCache(
                    fileURL: temporaryBenchmarkDirectory().appendingPathComponent("events.jsonl"),
                    limit: 1_000_000,
                    maxBytes: .max,
                    logger: SilentLogger()
                )
            }
        ),
    ]
    for (name, awaitedConfiguration, make) in durableCaches {
        guard let cache = try? make() else { continue }
        registerClientBenchmarks(
            "Default pipeline into \(name)",
            SteadyClient(processors: Telemetry.defaultProcessors(for: config), cache: cache),
            // A new input per event, made when it is sent, as an app's call makes it (the
            // event's id starts with that instant; see `SteadyClient.measurePipelined`).
            input: EventInput("Screen.shown", parameters: ["screen": "home", "count": 3, "ratio": 0.5]),
            awaitedConfiguration: awaitedConfiguration
        )
    }
}
