import TelemetryKit
import TelemetryKitSessionTracking
import TelemetryKitTesting
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A launch by a silent push, a background task or a HealthKit wake: the lifecycle reports
/// the app in the background before the processor starts (issue #49, TelemetryDeck#281).
@Suite("SessionTrackingProcessor: launches in the background")
struct BackgroundLaunchTests {
    /// No session while in the background: no events sent, events carry the previous
    /// session's id and the stored values, nothing is written. The first foreground opens
    /// the session (sooner than the session timeout), counted from that moment.
    @Test func aColdLaunchInTheBackgroundOpensItsSessionInTheForeground() async throws {
        let install = SimulatedInstall()
        let firstStart = install.clock.now
        let first = await install.launch()
        let previousSession = first.processor.activeSessionID
        install.clock.advance(by: 100)
        _ = try await first.event()
        await first.processor.stop()
        let historyBefore = await install.storage.data(forKey: Keys.historyStorageKey)
        let recordBefore = await install.storage.data(forKey: Keys.activeSessionStorageKey)

        install.clock.advance(by: oneDay)
        let launch = await install.launch(inBackground: true)
        #expect(launch.emitter.sentNames == [])
        #expect(launch.processor.activeSessionID == previousSession)

        install.clock.advance(by: 20)
        let background = try await launch.event("Push.received")
        #expect(background.sessionID == previousSession.uuidString)
        #expect(background.int(Keys.totalSessionsCount) == 1)
        #expect(background.int(Keys.distinctDaysUsed) == 1)
        #expect(background.int(Keys.averageSessionSeconds) == -1)
        #expect(background.payload[Keys.previousSessionSeconds] == nil)
        #expect(background.string(Keys.firstSessionDate) == "2024-01-01")
        #expect(background.bool(Keys.isNewInstall) == nil)
        await launch.processor.waitUntilIdle()
        #expect(await install.storage.data(forKey: Keys.historyStorageKey) == historyBefore)
        #expect(await install.storage.data(forKey: Keys.activeSessionStorageKey) == recordBefore)

        install.clock.advance(by: 40)
        let opening = install.clock.now
        launch.lifecycle.send(.willEnterForeground)
        await launch.processor.waitUntilIdle()
        #expect(launch.emitter.sentNames == [Keys.sessionStartedEvent])
        #expect(launch.emitter.sent.map(\.timestamp) == [opening])

        let opened = try await launch.event("App.opened")
        #expect(opened.sessionID == launch.processor.activeSessionID.uuidString)
        #expect(opened.sessionID != previousSession.uuidString)
        #expect(opened.int(Keys.totalSessionsCount) == 2)
        #expect(opened.int(Keys.previousSessionSeconds) == 100)
        #expect(opened.int(Keys.distinctDaysUsed) == 2)
        let stored = try await install.storedHistory()
        #expect(stored.sessions.map(\.start) == [firstStart, opening].map(\.timeIntervalSince1970))
        #expect(stored.sessions.map(\.seconds) == [100, 0])

        // From then on the session follows the timeout as after a launch in the foreground.
        launch.lifecycle.send(.didEnterBackground)
        install.clock.advance(by: 60)
        launch.lifecycle.send(.willEnterForeground)
        await launch.processor.waitUntilIdle()
        #expect(launch.emitter.sentNames == [Keys.sessionStartedEvent])
        #expect(try await launch.event().sessionID == opened.sessionID)
        #expect(install.logger.warnings.isEmpty)
    }

    /// Through a client: the first launch of an install, in the background. Its events carry
    /// the id of the session that opens in the foreground and no retention values; the
    /// install is announced with that session, on the day it opens.
    @Test func aFreshInstallLaunchedInTheBackgroundIsAnnouncedInTheForeground() async throws {
        let processor = SessionTrackingProcessor(timeZoneOffset: 0)
        let clock = ManualClock(start: try utc("2024-01-01T23:30:00Z"))
        let harness = await TestHarness.make(processors: [processor], clock: clock, start: false)
        let client = harness.client
        client.lifecycle.send(.didEnterBackground)
        await client.start()
        let pendingSession = processor.activeSessionID

        client.event("Push.received")
        await client.flush()
        let background = harness.spy.deliveredEvents
        #expect(background.map(\.type) == ["Push.received"])
        #expect(background.map(\.sessionID) == [pendingSession.uuidString])
        #expect(background.first?.payload[Keys.totalSessionsCount] == nil)
        #expect(background.first?.payload[Keys.firstSessionDate] == nil)
        #expect(background.first?.payload[Keys.isNewInstall] == nil)
        #expect(await harness.storage.data(forKey: Keys.historyStorageKey) == nil)
        harness.spy.reset()

        clock.advance(by: 3600)  // 00:30 the next day
        client.lifecycle.send(.willEnterForeground)
        await processor.waitUntilIdle()
        client.event("App.opened")
        await client.flush()
        let foreground = harness.spy.deliveredEvents
        #expect(foreground.map(\.type) == [Keys.newInstallDetectedEvent, Keys.sessionStartedEvent, "App.opened"])
        #expect(foreground.map { $0.bool(Keys.isNewInstall) } == [true, nil, nil])
        #expect(foreground.allSatisfy { $0.sessionID == pendingSession.uuidString })
        #expect(foreground.allSatisfy { $0.int(Keys.totalSessionsCount) == 1 })
        #expect(foreground.allSatisfy { $0.string(Keys.firstSessionDate) == "2024-01-02" })
        #expect(processor.activeSessionID == pendingSession)
        await client.shutdown()
        #expect(harness.logger.warnings.isEmpty)
    }

    /// A run that never comes to the foreground leaves the storage as it found it, even
    /// through `stop()`: the next launch in the foreground counts one session more, and the
    /// previous session keeps its length.
    @Test func aRunThatStaysInTheBackgroundCountsNoSession() async throws {
        let install = SimulatedInstall()
        try await install.runSession(seconds: 100)
        let historyBefore = await install.storage.data(forKey: Keys.historyStorageKey)
        let recordBefore = await install.storage.data(forKey: Keys.activeSessionStorageKey)

        install.clock.advance(by: 3600)
        let background = await install.launch(inBackground: true)
        install.clock.advance(by: 30)
        _ = try await background.event("Refresh.finished")
        background.lifecycle.send(.didEnterBackground)
        background.lifecycle.send(.willTerminate)
        install.clock.advance(by: 30)
        await background.processor.stop()
        #expect(background.emitter.sentNames == [])
        #expect(await install.storage.data(forKey: Keys.historyStorageKey) == historyBefore)
        #expect(await install.storage.data(forKey: Keys.activeSessionStorageKey) == recordBefore)

        install.clock.advance(by: 3600)
        let next = await install.launch()
        #expect(next.emitter.sentNames == [Keys.sessionStartedEvent])
        let event = try await next.event()
        #expect(event.int(Keys.totalSessionsCount) == 2)
        #expect(event.int(Keys.previousSessionSeconds) == 100)
        #expect(event.bool(Keys.isNewInstall) == nil)
    }

    /// The first launch of an install, in the background only, stores nothing: the first
    /// launch in the foreground is still the new install.
    @Test func aFreshInstallThatStaysInTheBackgroundIsNewAtItsFirstVisit() async throws {
        let install = SimulatedInstall()
        let background = await install.launch(inBackground: true)
        _ = try await background.event("Refresh.finished")
        await background.processor.stop()
        #expect(background.emitter.sentNames == [])
        #expect(await install.storage.data(forKey: Keys.historyStorageKey) == nil)
        #expect(await install.storage.data(forKey: Keys.activeSessionStorageKey) == nil)

        install.clock.advance(by: 3600)
        let next = await install.launch()
        #expect(next.emitter.sentNames == [Keys.newInstallDetectedEvent, Keys.sessionStartedEvent])
        let event = try await next.event()
        #expect(event.bool(Keys.isNewInstall) == true)
        #expect(event.int(Keys.totalSessionsCount) == 1)
    }

    /// A launch in the foreground is unchanged: the session opens at start, also when the
    /// lifecycle went to the background and back before.
    @Test(
        "A launch in the foreground opens its session at start",
        arguments: [[], [AppLifecycleSignal.didEnterBackground, .willEnterForeground]]
    )
    func aLaunchInTheForegroundOpensItsSessionAtStart(signalsBefore: [AppLifecycleSignal]) async throws {
        let storage = InMemoryProcessorStorage()
        let emitter = RecordingEmitter(clock: ManualClock())
        for signal in signalsBefore { emitter.lifecycle.send(signal) }
        let processor = SessionTrackingProcessor(timeZoneOffset: 0)
        await processor.start(storage: storage, logger: RecordingLogger(), emitter: emitter)

        #expect(emitter.sentNames == [Keys.newInstallDetectedEvent, Keys.sessionStartedEvent])
        let saved = try #require(await storage.data(forKey: Keys.historyStorageKey))
        #expect(try JSONDecoder().decode(StoredHistory.self, from: saved).sessions.count == 1)
    }

    /// `newSession()` in the background gives later events a new id and opens no session;
    /// the session that opens in the foreground has that id.
    @Test func newSessionInTheBackgroundOnlyChangesTheID() async throws {
        let install = SimulatedInstall()
        try await install.runSession(seconds: 100)
        let launch = await install.launch(inBackground: true)
        let previous = launch.processor.activeSessionID

        let requested = await launch.processor.startNewSession()
        #expect(requested != previous)
        #expect(launch.processor.activeSessionID == requested)
        #expect(launch.emitter.sentNames == [])
        let background = try await launch.event()
        #expect(background.sessionID == requested.uuidString)
        #expect(background.int(Keys.totalSessionsCount) == 1)

        launch.lifecycle.send(.willEnterForeground)
        await launch.processor.waitUntilIdle()
        #expect(launch.emitter.sentNames == [Keys.sessionStartedEvent])
        #expect(launch.processor.activeSessionID == requested)
        #expect(try await launch.event().int(Keys.totalSessionsCount) == 2)
    }

    /// A processor started on a lifecycle of its own follows that lifecycle's state, not the
    /// client's.
    @Test func anInjectedLifecycleDecides() async throws {
        let ownLifecycle = AppLifecycle()
        ownLifecycle.send(.didEnterBackground)
        let clock = ManualClock()
        let processor = SessionTrackingProcessor(lifecycle: ownLifecycle, clock: clock, timeZoneOffset: 0)
        let emitter = RecordingEmitter(clock: clock)  // its lifecycle is in the foreground
        await processor.start(storage: InMemoryProcessorStorage(), logger: RecordingLogger(), emitter: emitter)
        #expect(emitter.sentNames == [])

        emitter.lifecycle.send(.willEnterForeground)
        await processor.waitUntilIdle()
        #expect(emitter.sentNames == [])

        ownLifecycle.send(.willEnterForeground)
        await processor.waitUntilIdle()
        #expect(emitter.sentNames == [Keys.newInstallDetectedEvent, Keys.sessionStartedEvent])
    }

    /// A launch in the background while another live process's session is active joins it as
    /// a launch in the foreground does (same id, nothing sent, nothing counted), and on coming
    /// to the foreground keeps it within the session timeout, else starts its own.
    @Test(
        "A launch in the background joins another process's active session",
        arguments: [(60.0, false), (SessionTrackingProcessor.defaultSessionTimeout, true)]
    )
    func aLaunchInTheBackgroundJoinsAnActiveSession(secondsInBackground: TimeInterval, startsOwn: Bool) async throws {
        let storage = InMemoryProcessorStorage()
        let clock = ManualClock()
        let logger = RecordingLogger()
        // The widget's process: a live process other than this one.
        let widget = SessionTrackingProcessor(timeZoneOffset: 0, processIdentifier: getppid(), executable: "Widget")
        let widgetEmitter = RecordingEmitter(clock: clock)
        await widget.start(storage: storage, logger: logger, emitter: widgetEmitter)

        clock.advance(by: 10)
        let app = SessionTrackingProcessor(timeZoneOffset: 0, processIdentifier: getpid(), executable: "App")
        let appEmitter = RecordingEmitter(clock: clock)
        appEmitter.lifecycle.send(.didEnterBackground)
        await app.start(storage: storage, logger: logger, emitter: appEmitter)
        #expect(app.activeSessionID == widget.activeSessionID)
        #expect(appEmitter.sentNames == [])

        clock.advance(by: secondsInBackground)
        appEmitter.lifecycle.send(.willEnterForeground)
        await app.waitUntilIdle()
        if startsOwn {
            #expect(appEmitter.sentNames == [Keys.sessionStartedEvent])
            #expect(app.activeSessionID != widget.activeSessionID)
        } else {
            #expect(appEmitter.sentNames == [])
            #expect(app.activeSessionID == widget.activeSessionID)
        }
        let finalizer = EventFinalizer(appID: "TEST-APP", logger: logger)
        let pipeline = ProcessorPipeline(processors: [app], finalizer: finalizer)
        let event = try await pipeline.process(EventInput("App.opened", timestamp: clock.now))
        #expect(event.int(Keys.totalSessionsCount) == (startsOwn ? 2 : 1))
        #expect(logger.warnings.isEmpty)
    }
}
