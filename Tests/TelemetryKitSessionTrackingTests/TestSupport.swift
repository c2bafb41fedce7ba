import TelemetryKit
import TelemetryKitSessionTracking
import TelemetryKitTesting
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

typealias Keys = SessionTrackingProcessor.Keys

extension SessionTrackingProcessor {
    /// Starts the processor as a client does: its lifecycle and clock are attached first.
    func start(storage: any ProcessorStorage, logger: any Logging, emitter: RecordingEmitter) async {
        attach(lifecycle: emitter.lifecycle, clock: emitter.clock)
        await start(storage: storage, logger: logger, emitter: emitter as any EventSending)
    }
}

/// One simulated launch: a processor started on shared storage and clock, run through a pipeline.
struct Launch {
    let processor: SessionTrackingProcessor
    let emitter: RecordingEmitter
    let pipeline: ProcessorPipeline
    let clock: ManualClock

    /// The client's lifecycle, which the processor follows when none was injected.
    var lifecycle: AppLifecycle { emitter.lifecycle }

    /// Runs one event through the pipeline at the clock's current time.
    func event(_ name: String = "Test.event") async throws -> Event {
        try await pipeline.process(EventInput(name, timestamp: clock.now))
    }
}

/// Storage, clock and logger shared by the launches of one simulated install.
struct SimulatedInstall {
    let storage = InMemoryProcessorStorage()
    let clock: ManualClock
    let logger = RecordingLogger()

    init(start: Date = Date(timeIntervalSince1970: 1_704_067_200)) {
        clock = ManualClock(start: start)
    }

    /// Starts a new processor on this device's storage and clock (through the client handle);
    /// `inBackground`: the client's lifecycle reported the app in the background before, as
    /// at a launch by a silent push or a background task.
    func launch(
        sendSessionStartedEvent: Bool = true,
        timeZoneOffset: Int = 0,
        inBackground: Bool = false
    ) async -> Launch {
        let processor = SessionTrackingProcessor(
            sendSessionStartedEvent: sendSessionStartedEvent,
            timeZoneOffset: timeZoneOffset
        )
        let emitter = RecordingEmitter(clock: clock)
        if inBackground {
            emitter.lifecycle.send(.didEnterBackground)
        }
        await processor.start(storage: storage, logger: logger, emitter: emitter)
        let pipeline = ProcessorPipeline(
            processors: [processor],
            finalizer: EventFinalizer(appID: "TEST-APP", logger: logger)
        )
        return Launch(processor: processor, emitter: emitter, pipeline: pipeline, clock: clock)
    }

    /// Runs a whole launch at `date`: starts, lasts `seconds` (with an event at the end), stops.
    func runSession(at date: Date? = nil, seconds: TimeInterval, timeZoneOffset: Int = 0) async throws {
        if let date { clock.set(date) }
        let launch = await launch(timeZoneOffset: timeZoneOffset)
        clock.advance(by: seconds)
        _ = try await launch.event()
        await launch.processor.stop()
    }

    /// The persisted history, decoded with the documented field names.
    func storedHistory() async throws -> StoredHistory {
        let data = try #require(await storage.data(forKey: Keys.historyStorageKey))
        return try JSONDecoder().decode(StoredHistory.self, from: data)
    }
}

/// The persisted format as a reader outside the processor sees it.
struct StoredHistory: Decodable {
    struct Session: Decodable {
        var start: Double
        var seconds: Double
    }
    var version: Int
    var firstSessionDay: Int
    var prunedSessionCount: Int
    var prunedDayCount: Int
    var sessions: [Session]
    var days: [Int]
}

/// A UTC date for test fixtures, e.g. `utc("2024-06-15T14:00:00Z")`.
func utc(_ string: String) throws -> Date {
    try #require(ISO8601.date(from: string))
}

let oneDay: TimeInterval = 86_400

extension Event {
    func int(_ key: String) -> Int64? {
        if case .int(let value) = payload[key] { return value }
        return nil
    }

    func string(_ key: String) -> String? {
        if case .string(let value) = payload[key] { return value }
        return nil
    }

    func bool(_ key: String) -> Bool? {
        if case .bool(let value) = payload[key] { return value }
        return nil
    }
}
