import Benchmark
import BenchmarkSupport
import TelemetryKit
import TelemetryKitJSONFileStorage
import TelemetryKitPlistStorage
import TelemetryKitTesting

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A fresh directory for one benchmark's files.
func makeDirectory(_ name: String) -> URL {
    let url = benchmarkScratchDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)", isDirectory: true)
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// One set and one get of an integer, the typical processor access (e.g. a launch counter).
func setAndGet(_ storage: any ProcessorStorage, _ benchmark: Benchmark) async {
    for iteration in benchmark.scaledIterations {
        await storage.set(iteration, forKey: "Benchmark.counter")
        blackHole(await storage.integer(forKey: "Benchmark.counter"))
    }
}

/// One changed value and a flush: one whole-file atomic write (with fsync) of 100 keys.
func setAndFlush(_ storage: any ProcessorStorage, _ benchmark: Benchmark) async {
    for index in 0..<100 {
        await storage.set("value \(index)", forKey: "Benchmark.key\(index)")
    }
    for iteration in benchmark.scaledIterations {
        await storage.set(iteration, forKey: "Benchmark.counter")
        await storage.flush()
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .perEvent
    let writeConfiguration = Benchmark.Configuration(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 5,
        scalingFactor: .one,
        maxDuration: .seconds(2)
    )

    Benchmark("InMemory set+get") { benchmark in
        await setAndGet(InMemoryProcessorStorage(), benchmark)
    }

    // A manual clock keeps the delayed write out of the measurement: set+get is memory only.
    Benchmark("Plist set+get") { benchmark in
        let directory = makeDirectory("plist")
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try PlistProcessorStorage(appID: "BENCH", directory: directory, clock: ManualClock())
        await setAndGet(storage, benchmark)
    }

    Benchmark("JSONFile set+get") { benchmark in
        let directory = makeDirectory("json")
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try JSONFileProcessorStorage(appID: "BENCH", directory: directory, clock: ManualClock())
        await setAndGet(storage, benchmark)
    }

    Benchmark("Plist write (100 keys, flush)", configuration: writeConfiguration) { benchmark in
        let directory = makeDirectory("plist-write")
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try PlistProcessorStorage(appID: "BENCH", directory: directory, clock: ManualClock())
        await setAndFlush(storage, benchmark)
    }

    Benchmark("JSONFile write (100 keys, flush)", configuration: writeConfiguration) { benchmark in
        let directory = makeDirectory("json-write")
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = try JSONFileProcessorStorage(appID: "BENCH", directory: directory, clock: ManualClock())
        await setAndFlush(storage, benchmark)
    }
}
