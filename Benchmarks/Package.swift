// swift-tools-version: 6.2

import Foundation
import PackageDescription

// One executable benchmark suite per folder under Benchmarks/<Suite>/ (package-benchmark).
// Suites are discovered from the folders, and each may import any TelemetryKit product
// listed below.

/// Library products of the root package that benchmark suites may import.
let telemetryKitProducts: [String] = [
    "TelemetryKit",
    "TelemetryKitClient",
    "TelemetryKitTesting",
    "TelemetryKitTypedEvents",
    "TelemetryKitInMemoryStorage",
    "TelemetryKitPlistStorage",
    "TelemetryKitJSONFileStorage",
    "TelemetryKitDefaults",
    "TelemetryKitPresets",
    // Processors
    "TelemetryKitPreviewFilter",
    "TelemetryKitDefaultParameters",
    "TelemetryKitDefaultPrefix",
    "TelemetryKitValidation",
    "TelemetryKitTestMode",
    "TelemetryKitUserIdentifier",
    "TelemetryKitAppInfo",
    "TelemetryKitDevice",
    "TelemetryKitLocale",
    "TelemetryKitCalendar",
    "TelemetryKitAccessibility",
    "TelemetryKitTrialConversion",
    "TelemetryKitSessionTracking",
    "TelemetryKitConsent",
    "TelemetryKitTransformations",
    // Caches
    "TelemetryKitSQLiteCache",
    "TelemetryKitJSONLinesCache",
    // Transmitters
    "TelemetryKitHTTP",
    "TelemetryKitOpenTelemetry",
    // JavaScript transformer
    "TelemetryKitJavaScript",
]

let benchmarksDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("Benchmarks")
let suites =
    ((try? FileManager.default.contentsOfDirectory(atPath: benchmarksDirectory.path)) ?? [])
    .filter { !$0.hasPrefix(".") }
    .sorted()

let package = Package(
    name: "TelemetryKitBenchmarks",
    platforms: [.macOS(.v15)],  // Synchronization.Mutex
    dependencies: [
        // The OpenTelemetry trait: TelemetryKitOpenTelemetry is empty without it.
        .package(name: "TelemetryKit", path: "..", traits: ["OpenTelemetry"]),
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        // Helpers shared by the suites (emitter, memory reading, a steady client).
        .target(
            name: "BenchmarkSupport",
            dependencies: [.product(name: "Benchmark", package: "benchmark")]
                + telemetryKitProducts.map { .product(name: $0, package: "TelemetryKit") },
            path: "Support"
        )
    ]
        + suites.map { suite in
            .executableTarget(
                name: suite,
                dependencies: [.product(name: "Benchmark", package: "benchmark"), "BenchmarkSupport"]
                    + telemetryKitProducts.map { .product(name: $0, package: "TelemetryKit") },
                path: "Benchmarks/\(suite)",
                plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
            )
        }
)
