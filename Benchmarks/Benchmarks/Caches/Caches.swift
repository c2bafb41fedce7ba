import Benchmark
import BenchmarkSupport
import Foundation
import Synchronization
import TelemetryKit
import TelemetryKitClient
import TelemetryKitJSONLinesCache
import TelemetryKitSQLiteCache

// Event caches: append (a batch of 100 per call, as group commit amortizes it), peek + remove
// of the dispatcher's 100-event batch, per backend (SQLite with its default synchronous .normal
// and with .full); and the resident memory per event that
// InMemoryEventCache holds. Targets: SQLite append ≤ 10 µs per event (≤ 1 ms per 100),
// peek + remove of 100 ≤ 1 ms, InMemory ≤ 1 KB per event.

/// An event with the parameters a few app processors add (10 payload entries).
func typicalEvent(_ number: Int) -> Event {
    Event(
        appID: "B8E6D3A1-0000-4000-8000-BENCHMARKAPP",
        type: "Screen.shown",
        clientUser: "5f8c3d0e9a7b4c2d1e0f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d",
        sessionID: "7C1F2E3D-4B5A-4968-8776-A5B4C3D2E1F0",
        receivedAt: Date(timeIntervalSince1970: Double(1_718_460_000_000 + number) / 1000),
        payload: [
            "screen": .string("home"),
            "count": .int(Int64(number)),
            "ratio": .double(0.5),
            "isFirstLaunch": .bool(false),
            "TelemetryDeck.SDK.version": .string("1.0.0"),
            "TelemetryDeck.SDK.name": .string("TelemetryKit"),
            "TelemetryDeck.Device.platform": .string("Linux"),
            "TelemetryDeck.Device.architecture": .string("x86_64"),
            "TelemetryDeck.AppInfo.version": .string("2.3.1"),
            "TelemetryDeck.AppInfo.buildNumber": .string("231"),
        ]
    )
}

/// The parameters the default processors add beyond `typicalEvent`'s, computed once as
/// processors do (so keys and values are shared between events, not copied).
let defaultProcessorParameters: [String: PayloadValue] = {
    let keys = [
        "Accessibility.isBoldTextEnabled", "Accessibility.isReduceMotionEnabled",
        "Accessibility.preferredContentSizeCategory", "Acquisition.firstSessionDate", "Acquisition.isNewInstall",
        "AppInfo.versionAndBuildNumber", "Calendar.dayOfMonth", "Calendar.dayOfWeek", "Calendar.dayOfYear",
        "Calendar.hourOfDay", "Calendar.isWeekend", "Calendar.monthOfYear", "Calendar.quarterOfYear",
        "Calendar.weekOfYear", "Device.modelName", "Device.operatingSystem", "Device.screenResolutionHeight",
        "Device.screenResolutionWidth", "Device.systemMajorMinorVersion", "Device.systemMajorVersion",
        "Device.systemVersion", "Device.timeZone", "Retention.averageSessionSeconds", "Retention.distinctDaysUsed",
        "Retention.distinctDaysUsedLastMonth", "Retention.previousSessionSeconds", "Retention.totalSessionsCount",
        "RunContext.isAppStore", "RunContext.isDebug", "RunContext.isSimulator", "RunContext.isTestFlight",
        "RunContext.language", "RunContext.locale", "RunContext.targetEnvironment", "SDK.nameAndVersion",
        "UserPreference.colorScheme", "UserPreference.language", "UserPreference.layoutDirection",
        "UserPreference.region",
    ]
    var parameters: [String: PayloadValue] = [:]
    for (index, key) in keys.enumerated() {
        parameters["TelemetryDeck." + key] =
            index % 3 == 0 ? .int(Int64(index)) : .string("a longer shared value \(index)")
    }
    return parameters
}()

/// An event with every parameter the default processors add (49 payload entries): each event
/// has its own payload dictionary, as the finalizer builds one per event.
func fullDefaultsEvent(_ number: Int) -> Event {
    var event = typicalEvent(number)
    event.payload.merge(defaultProcessorParameters) { current, _ in current }
    return event
}

/// An event as the default pipeline makes it: the processors' metadata (the 49-entry
/// default payload, one shared dictionary, as processors add precomputed dictionaries)
/// finalized with the event's own four parameters.
let defaultsFinalizer = EventFinalizer(appID: "B8E6D3A1-0000-4000-8000-BENCHMARKAPP", salt: "salt")
let defaultsMetadata: [String: PayloadValue] = fullDefaultsEvent(0).payload.filter {
    !["screen", "count", "ratio", "isFirstLaunch"].contains($0.key)
}

func finalizedDefaultsEvent(_ number: Int) -> Event {
    var context = EventContext(
        sessionID: UUID(uuidString: "7C1F2E3D-4B5A-4968-8776-A5B4C3D2E1F0"),
        userIdentifier: "user-42"
    )
    context.addParameters(defaultsMetadata)
    let input = EventInput(
        "Screen.shown",
        parameters: ["screen": "home", "count": number, "ratio": 0.5, "isFirstLaunch": false]
    )
    return defaultsFinalizer.finalize(input, context: context)
}

func temporaryCacheURL(_ name: String) -> URL {
    temporaryBenchmarkDirectory().appendingPathComponent(name)
}

/// Copies of `events` with fresh ids.
func withNewIDs(_ events: [Event]) -> [Event] {
    events.map { event in
        var copy = event
        copy.id = UUID()
        return copy
    }
}

/// How many append benchmarks ran, shared by their closures.
final class AppendCount: Sendable {
    let calls = Mutex(0)
}

/// Registers the append and peek+remove benchmarks for one backend.
func cacheBenchmarks(_ backend: String, make: () throws -> any EventCaching) {
    let appendCache: any EventCaching
    let drainCache: any EventCaching
    do {
        appendCache = try make()
        drainCache = try make()
    } catch {
        print("Skipping the \(backend) benchmarks: \(error)")
        return
    }
    let batch = (0..<100).map(typicalEvent)
    let appended = AppendCount()

    Benchmark("\(backend): append 100 events (one call)") { benchmark in
        // Keep the cache from growing without bound; not measured.
        if appended.calls.withLock({ count in
            count += 1
            return count % 50 == 0
        }) {
            try await appendCache.removeAll()
        }
        benchmark.startMeasurement()
        try await appendCache.append(batch)
    }

    // Events as the default pipeline makes them: ~50 shared metadata entries and 4 own.
    let defaultsBatch = (0..<100).map(finalizedDefaultsEvent)
    Benchmark("\(backend): append 100 default-pipeline events (one call)") { benchmark in
        if appended.calls.withLock({ count in
            count += 1
            return count % 50 == 0
        }) {
            try await appendCache.removeAll()
        }
        let batch = withNewIDs(defaultsBatch)
        benchmark.startMeasurement()
        try await appendCache.append(batch)
    }

    Benchmark("\(backend): peek + remove 100 events") { benchmark in
        // Refill with a fresh batch (new ids), not measured; the queue stays ~5,000 deep.
        if await drainCache.count() == 0 {
            for _ in 0..<49 { try await drainCache.append(withNewIDs(batch)) }
        }
        try await drainCache.append(withNewIDs(batch))
        benchmark.startMeasurement()
        // The dispatcher's case: the oldest batch.
        let oldest = try await drainCache.peek(limit: 100)
        try await drainCache.remove(ids: oldest.map(\.id))
    }
}

let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal],
        warmupIterations: 5,
        scalingFactor: .one,
        maxDuration: .seconds(3),
        maxIterations: 2000
    )

    cacheBenchmarks("InMemoryEventCache") { InMemoryEventCache(cacheLimit: 1_000_000) }
    cacheBenchmarks("SQLiteEventCache") {
        try SQLiteEventCache(fileURL: temporaryCacheURL("events.sqlite"), limit: 1_000_000)
    }
    cacheBenchmarks("SQLiteEventCache (synchronous: .full)") {
        try SQLiteEventCache(fileURL: temporaryCacheURL("events.sqlite"), limit: 1_000_000, synchronous: .full)
    }
    cacheBenchmarks("JSONLinesEventCache") {
        try JSONLinesEventCache(fileURL: temporaryCacheURL("events.jsonl"), limit: 1_000_000)
    }

    let residentPerEvent = BenchmarkMetric.custom(
        "RSS bytes per event",
        polarity: .prefersSmaller,
        useScalingFactor: false
    )
    let memoryConfiguration = Benchmark.Configuration(
        metrics: [residentPerEvent],
        warmupIterations: 0,
        scalingFactor: .one,
        maxDuration: .seconds(30),
        maxIterations: 1
    )
    Benchmark("InMemoryEventCache: memory, 100,000 typical events", configuration: memoryConfiguration) { benchmark in
        if let bytes = try await inMemoryBytesPerEvent(count: 100_000, make: typicalEvent) {
            benchmark.measurement(residentPerEvent, bytes)
        }
    }
    Benchmark("InMemoryEventCache: memory, 100,000 default-pipeline events", configuration: memoryConfiguration) {
        benchmark in
        if let bytes = try await inMemoryBytesPerEvent(count: 100_000, make: finalizedDefaultsEvent) {
            benchmark.measurement(residentPerEvent, bytes)
        }
    }
    Benchmark(
        "InMemoryEventCache: memory, 100,000 flat 49-key events (each its own dictionary)",
        configuration: memoryConfiguration
    ) { benchmark in
        if let bytes = try await inMemoryBytesPerEvent(count: 100_000, make: fullDefaultsEvent) {
            benchmark.measurement(residentPerEvent, bytes)
        }
    }
}
