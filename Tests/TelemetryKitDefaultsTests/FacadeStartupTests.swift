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

    /// The default queue opens on its own I/O queue while the client starts. When its file
    /// cannot be opened (here a directory is in its place), `initialize` still throws
    /// `.unusableDataDirectory` and leaves the facade as it found it: no client, the lifecycle
    /// source disconnected, the analytics choice and the buffered events kept for the next
    /// `initialize`, which delivers them once the directory is usable.
    @Test func aDefaultQueueThatCannotOpenFailsInitializeAndKeepsWhatWasGathered() async throws {
        await Telemetry.terminate()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queueFile = directory.file("events-\(Telemetry.defaultDestinationID).sqlite")
        try FileManager.default.createDirectory(at: queueFile, withIntermediateDirectories: false)
        let previousSource = Telemetry.lifecycleEventSource
        defer { Telemetry.lifecycleEventSource = previousSource }
        let source = ManualLifecycleEventSource()
        Telemetry.lifecycleEventSource = source
        var configuration = config
        configuration.dataDirectory = directory.url
        configuration.shutdownTimeout = 0.2
        func initialize(_ transmitter: SpyEventTransmitter, _ logger: RecordingLogger) async throws(TelemetryError) {
            try await Telemetry.initialize(
                configuration: configuration,
                processors: [UserIdentifierProcessor(), SessionTrackingProcessor(timeZoneOffset: 0)],
                transmitter: transmitter,
                logger: logger,
                storage: InMemoryProcessorStorage()
            )
        }

        // A choice made before: still pending after the failed call.
        await Telemetry.setAnalyticsDisabled(true)
        let first = await #expect(throws: TelemetryError.self) {
            try await initialize(SpyEventTransmitter(), RecordingLogger())
        }
        #expect(first?.code == .unusableDataDirectory)
        #expect(Telemetry.client == nil)
        #expect(await Telemetry.isAnalyticsDisabled)

        // Events buffered before: still buffered after the failed call.
        await Telemetry.setAnalyticsDisabled(false)
        Telemetry.signal("Early.one")
        let logger = RecordingLogger()
        let abandoned = SpyEventTransmitter()
        let second = await #expect(throws: TelemetryError.self) {
            try await initialize(abandoned, logger)
        }
        #expect(second?.code == .unusableDataDirectory)
        #expect(second?.message.contains(queueFile.lastPathComponent) == true)
        #expect(Telemetry.client == nil)
        #expect(source.subscriberCount == 0)
        // The queue's file cannot even be created: no client was built, so none sent anything.
        #expect(abandoned.deliveredEvents.isEmpty)

        try FileManager.default.removeItem(at: queueFile)
        let spy = SpyEventTransmitter()
        try await initialize(spy, RecordingLogger())
        #expect(source.subscriberCount == 1)
        #expect(await !Telemetry.isAnalyticsDisabled)
        await Telemetry.flush()
        // This launch's first events, then the buffered one.
        typealias Keys = SessionTrackingProcessor.Keys
        #expect(
            spy.deliveredEvents.map(\.type) == [Keys.newInstallDetectedEvent, Keys.sessionStartedEvent, "Early.one"]
        )
        await Telemetry.terminate()
    }

    #if os(Linux)
    /// A queue file that can be created but not written (a link to /dev/full, where every
    /// write fails): the opening fails on the queue's I/O thread after the client started, and
    /// `initialize` throws all the same, stops that client (which sends its own first events
    /// from memory) and keeps the buffered event for the next `initialize`.
    @Test func aDefaultQueueWhoseOpeningFailsLaterFailsInitializeAndKeepsWhatWasGathered() async throws {
        await Telemetry.terminate()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let queueFile = directory.file("events-\(Telemetry.defaultDestinationID).sqlite")
        try FileManager.default.createSymbolicLink(atPath: queueFile.path, withDestinationPath: "/dev/full")
        var configuration = config
        configuration.dataDirectory = directory.url
        configuration.shutdownTimeout = 0.2
        func initialize(_ transmitter: SpyEventTransmitter) async throws(TelemetryError) {
            try await Telemetry.initialize(
                configuration: configuration,
                processors: [UserIdentifierProcessor(), SessionTrackingProcessor(timeZoneOffset: 0)],
                transmitter: transmitter,
                logger: RecordingLogger(),
                storage: InMemoryProcessorStorage()
            )
        }

        Telemetry.signal("Early.one")
        let abandoned = SpyEventTransmitter()
        let error = await #expect(throws: TelemetryError.self) { try await initialize(abandoned) }
        #expect(error?.code == .unusableDataDirectory)
        #expect(error?.message.contains("database or disk is full") == true)
        #expect(Telemetry.client == nil)
        typealias Keys = SessionTrackingProcessor.Keys
        #expect(abandoned.deliveredEvents.map(\.type) == [Keys.newInstallDetectedEvent, Keys.sessionStartedEvent])

        try FileManager.default.removeItem(at: queueFile)
        let spy = SpyEventTransmitter()
        try await initialize(spy)
        await Telemetry.flush()
        #expect(
            spy.deliveredEvents.map(\.type) == [Keys.newInstallDetectedEvent, Keys.sessionStartedEvent, "Early.one"]
        )
        await Telemetry.terminate()
    }
    #endif

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
