import Benchmark
import BenchmarkSupport
import Foundation
import TelemetryKit
import TelemetryKitHTTP
import TelemetryKitOpenTelemetry

/// The encoder `OTLPEventTransmitter` uses, with the resource a service sends.
func otlpEncoder(_ encoding: OTLPLogsEncoder.Encoding) throws -> OTLPLogsEncoder {
    let configuration = OTLPEventTransmitter.Configuration(
        endpoint: URL(string: "http://127.0.0.1:4318")!,
        serviceName: "checkout",
        serviceVersion: "1.4.0",
        serviceInstanceID: "6f9619ff-8b86-d011-b42d-00cf4fc964ff",
        hostName: "checkout-7d9f8",
        encoding: encoding
    )
    return try OTLPEventTransmitter(configuration: configuration).encoder
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 5,
        scalingFactor: .one,
        maxDuration: .seconds(2)
    )

    let plainBytesPerEvent = BenchmarkMetric.custom(
        "plain bytes per event",
        polarity: .prefersSmaller,
        useScalingFactor: false
    )
    let gzipBytesPerEvent = BenchmarkMetric.custom(
        "gzip bytes per event",
        polarity: .prefersSmaller,
        useScalingFactor: false
    )

    for encoding in OTLPLogsEncoder.Encoding.allCases {
        Benchmark("OTLP encode, \(encoding), 100 default-pipeline events (per batch)") { benchmark in
            let events = try await defaultPipelineEvents(count: 100)
            let encoder = try otlpEncoder(encoding)
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                blackHole(encoder.encode(events))
            }
            benchmark.stopMeasurement()
        }

        Benchmark(
            "OTLP body size, \(encoding), 100 default-pipeline events, encode + gzip (per batch)",
            configuration: .init(metrics: [.wallClock, .mallocCountTotal, plainBytesPerEvent, gzipBytesPerEvent])
        ) { benchmark in
            let events = try await defaultPipelineEvents(count: 100)
            let encoder = try otlpEncoder(encoding)
            var plainSize = 0
            var compressedSize = 0
            benchmark.startMeasurement()
            for _ in benchmark.scaledIterations {
                let body = encoder.encode(events)
                let compressed = try Gzip.compress(body)
                plainSize = body.count
                compressedSize = compressed.count
                blackHole(compressed)
            }
            benchmark.stopMeasurement()
            benchmark.measurement(plainBytesPerEvent, plainSize / events.count)
            benchmark.measurement(gzipBytesPerEvent, compressedSize / events.count)
        }
    }
}
