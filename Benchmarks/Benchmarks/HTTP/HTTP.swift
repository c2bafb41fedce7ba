import Benchmark
import BenchmarkSupport
import Foundation
import TelemetryKitDefaults
import TelemetryKitHTTP
import TelemetryKitTesting

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 10,
        scalingFactor: .kilo,
        maxDuration: .seconds(2)
    )

    Benchmark("Wire encode, EventWireEncoder (per event, default-pipeline payload)") { benchmark in
        let events = try await defaultPipelineEvents(count: 100)
        var buffer = [UInt8]()
        buffer.reserveCapacity(4096)
        benchmark.startMeasurement()
        for iteration in benchmark.scaledIterations {
            buffer.removeAll(keepingCapacity: true)
            EventWireEncoder.encode(events[iteration % events.count], into: &buffer)
            blackHole(buffer.count)
        }
        benchmark.stopMeasurement()
    }

    Benchmark(
        "Wire encode, JSONEncoder for comparison (per event, default-pipeline payload)",
        configuration: .init(scalingFactor: .one)
    ) { benchmark in
        let events = try await defaultPipelineEvents(count: 100)
        let encoder = JSONEncoder()
        benchmark.startMeasurement()
        for iteration in benchmark.scaledIterations {
            blackHole(try encoder.encode(events[iteration % events.count]))
        }
        benchmark.stopMeasurement()
    }

    let gzipBytesPerEvent = BenchmarkMetric.custom(
        "gzip bytes per event",
        polarity: .prefersSmaller,
        useScalingFactor: false
    )
    let jsonBytesPerEvent = BenchmarkMetric.custom(
        "JSON bytes per event",
        polarity: .prefersSmaller,
        useScalingFactor: false
    )

    Benchmark(
        "Request body, 100 default-pipeline events, encode + gzip (per batch)",
        configuration: .init(
            metrics: [.wallClock, .throughput, .mallocCountTotal, gzipBytesPerEvent, jsonBytesPerEvent],
            scalingFactor: .one
        )
    ) { benchmark in
        let events = try await defaultPipelineEvents(count: 100)
        var compressedSize = 0
        var jsonSize = 0
        benchmark.startMeasurement()
        for _ in benchmark.scaledIterations {
            let json = EventWireEncoder.encode(events)
            let compressed = try Gzip.compress(json)
            jsonSize = json.count
            compressedSize = compressed.count
            blackHole(compressed)
        }
        benchmark.stopMeasurement()
        benchmark.measurement(gzipBytesPerEvent, compressedSize / events.count)
        benchmark.measurement(jsonBytesPerEvent, jsonSize / events.count)
    }
}
