import Foundation
import TelemetryKitDefaults
import TelemetryKitSupport
import TelemetryKitTesting
import Testing

/// `Telemetry.initialize` runs the TelemetryDeck import and connects the lifecycle source
/// before the client starts. Part of the serialized facade suite.
extension FacadeTests {
    @Test func initializeImportsTelemetryDeckDataAndFollowsTheLifecycleSource() async throws {
        await Telemetry.terminate()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let file = directory.file(TelemetryDeckImporter.eventCacheFileName)
        try Data(EventFixtures.version3File.utf8).write(to: file)
        let previousSource = Telemetry.lifecycleEventSource
        let previousImporter = Telemetry.telemetryDeckImporter
        defer {
            Telemetry.lifecycleEventSource = previousSource
            Telemetry.telemetryDeckImporter = previousImporter
        }
        let source = ManualLifecycleEventSource()
        Telemetry.lifecycleEventSource = source
        Telemetry.telemetryDeckImporter = TelemetryDeckImporter(
            storage: await TelemetryDeckImporterTests.version3Storage(),
            eventFiles: [file]
        )
        let clock = ManualClock()
        let sessions = SessionTrackingProcessor(timeZoneOffset: 0)
        let spy = SpyEventTransmitter()

        try await Telemetry.initialize(
            configuration: config,
            processors: [UserIdentifierProcessor(), sessions],
            cache: InMemoryEventCache(),
            transmitter: spy,
            logger: RecordingLogger(),
            storage: InMemoryProcessorStorage(),
            clock: clock
        )

        #expect(source.subscriberCount == 1)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        let firstSession = sessions.activeSessionID
        source.post(.didEnterBackground)
        clock.advance(by: 300)
        source.post(.willEnterForeground)
        #expect(sessions.activeSessionID != firstSession)
        await sessions.waitUntilIdle()
        await Telemetry.flush()
        // The imported queue first, then this launch's session (no new install) and the next one.
        let started = SessionTrackingProcessor.Keys.sessionStartedEvent
        #expect(spy.deliveredEvents.map(\.type) == ["Legacy.first", "Legacy.second", started, started])

        // A new initialize moves the source over to its own client.
        await Telemetry.terminate()
        try await Telemetry.initialize(
            configuration: config,
            processors: [],
            cache: InMemoryEventCache(),
            transmitter: SpyEventTransmitter(),
            storage: InMemoryProcessorStorage()
        )
        #expect(source.subscriberCount == 1)
        await Telemetry.terminate()
    }

    /// The facade hands its background-task provider to the client it builds: the save and
    /// send on `.didEnterBackground` runs inside a task of it. None on Linux by default.
    @Test func initializeGivesTheClientTheBackgroundTasks() async throws {
        await Telemetry.terminate()
        #expect(Telemetry.backgroundTasks == nil, "no background tasks on Linux")
        let previousSource = Telemetry.lifecycleEventSource
        let previousTasks = Telemetry.backgroundTasks
        defer {
            Telemetry.lifecycleEventSource = previousSource
            Telemetry.backgroundTasks = previousTasks
        }
        let source = ManualLifecycleEventSource()
        Telemetry.lifecycleEventSource = source
        let begun = Locked<[String]>([])
        let ended = Locked(0)
        Telemetry.backgroundTasks = ClosureBackgroundTasks(
            begin: { name in begun.withLock { $0.append(name) } },
            end: { ended.withLock { $0 += 1 } }
        )
        let spy = SpyEventTransmitter()
        try await Telemetry.initialize(
            configuration: config,
            processors: [],
            cache: InMemoryEventCache(),
            transmitter: spy,
            logger: RecordingLogger(),
            storage: InMemoryProcessorStorage()
        )
        await Telemetry.event("Before.background")

        source.post(.didEnterBackground)
        while ended.current == 0 { try await Task.sleep(for: .milliseconds(1)) }

        #expect(begun.current == ["TelemetryKit: save and send"])
        #expect(spy.deliveredEvents.map(\.type) == ["Before.background"])
        await Telemetry.terminate()
    }
}

/// A background-task provider made of two closures.
private struct ClosureBackgroundTasks: BackgroundTaskProviding {
    let begin: @Sendable (String) -> Void
    let end: @Sendable () -> Void

    func beginBackgroundTask(named name: String, onExpiration: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        begin(name)
        return end
    }
}
