import TelemetryKit
import TelemetryKitSessionTracking
import TelemetryKitTesting
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

@Suite("SessionTrackingProcessor: sessions and lifecycle")
struct SessionLifecycleTests {
    @Test func firstLaunchStartsASessionAndDetectsTheNewInstall() async throws {
        let install = SimulatedInstall()
        let launch = await install.launch()

        #expect(launch.emitter.sentNames == [Keys.newInstallDetectedEvent, Keys.sessionStartedEvent])
        #expect(launch.emitter.sent.allSatisfy { $0.skipsReservedPrefixValidation })
        #expect(launch.emitter.sent.allSatisfy { $0.timestamp == install.clock.now })

        let first = try await launch.event()
        #expect(first.sessionID == launch.processor.activeSessionID.uuidString)
        #expect(first.int(Keys.totalSessionsCount) == 1)
        #expect(first.int(Keys.distinctDaysUsed) == 1)
        #expect(first.int(Keys.distinctDaysUsedLastMonth) == 1)
        #expect(first.int(Keys.averageSessionSeconds) == -1)
        #expect(first.payload[Keys.previousSessionSeconds] == nil)
        #expect(first.string(Keys.firstSessionDate) == "2024-01-01")
        #expect(first.bool(Keys.isNewInstall) == true)

        let second = try await launch.event()
        #expect(second.bool(Keys.isNewInstall) == nil)
        #expect(second.sessionID == first.sessionID)
        #expect(install.logger.warnings.isEmpty)
    }

    @Test func secondLaunchOnTheSameStorageIsNoNewInstall() async throws {
        let install = SimulatedInstall()
        try await install.runSession(seconds: 100)

        install.clock.advance(by: 3600)
        let launch = await install.launch()
        #expect(launch.emitter.sentNames == [Keys.sessionStartedEvent])

        let event = try await launch.event()
        #expect(event.bool(Keys.isNewInstall) == nil)
        #expect(event.int(Keys.totalSessionsCount) == 2)
        #expect(event.int(Keys.previousSessionSeconds) == 100)
        #expect(event.int(Keys.averageSessionSeconds) == 100)
        #expect(event.string(Keys.firstSessionDate) == "2024-01-01")
    }

    @Test(
        "Time in the background decides whether the session continues",
        arguments: [(60.0, false), (299.0, false), (300.0, true), (360.0, true)]
    )
    func backgroundTime(seconds: TimeInterval, startsNewSession: Bool) async throws {
        let install = SimulatedInstall()
        let launch = await install.launch()
        let firstSession = launch.processor.activeSessionID
        install.clock.advance(by: 45)
        _ = try await launch.event()

        launch.lifecycle.send(.didEnterBackground)
        install.clock.advance(by: seconds)
        launch.lifecycle.send(.willEnterForeground)
        await launch.processor.waitUntilIdle()

        let event = try await launch.event()
        if startsNewSession {
            #expect(launch.processor.activeSessionID != firstSession)
            #expect(event.sessionID == launch.processor.activeSessionID.uuidString)
            #expect(
                launch.emitter.sentNames == [
                    Keys.newInstallDetectedEvent, Keys.sessionStartedEvent, Keys.sessionStartedEvent,
                ]
            )
            #expect(launch.emitter.sent.last?.timestamp == install.clock.now)
            #expect(event.int(Keys.totalSessionsCount) == 2)
            // The first session ended when the app went to the background.
            #expect(event.int(Keys.previousSessionSeconds) == 45)
            #expect(event.int(Keys.averageSessionSeconds) == 45)
        } else {
            #expect(launch.processor.activeSessionID == firstSession)
            #expect(event.sessionID == firstSession.uuidString)
            #expect(launch.emitter.sentNames == [Keys.newInstallDetectedEvent, Keys.sessionStartedEvent])
            #expect(event.int(Keys.totalSessionsCount) == 1)
            #expect(event.int(Keys.averageSessionSeconds) == -1)
        }
    }

    @Test func injectedLifecycleAndClockWinOverTheClients() async throws {
        let storage = InMemoryProcessorStorage()
        let ownClock = ManualClock()
        let ownLifecycle = AppLifecycle()
        let processor = SessionTrackingProcessor(lifecycle: ownLifecycle, clock: ownClock, timeZoneOffset: 0)
        // The client's clock is a year ahead and its lifecycle is never used.
        let clientClock = ManualClock(start: Date(timeIntervalSince1970: 1_735_689_600))
        let emitter = RecordingEmitter(clock: clientClock)
        await processor.start(storage: storage, logger: RecordingLogger(), emitter: emitter)
        let firstSession = processor.activeSessionID

        emitter.lifecycle.send(.didEnterBackground)
        clientClock.advance(by: 3600)
        emitter.lifecycle.send(.willEnterForeground)
        await processor.waitUntilIdle()
        #expect(processor.activeSessionID == firstSession)

        ownLifecycle.send(.didEnterBackground)
        ownClock.advance(by: 360)
        ownLifecycle.send(.willEnterForeground)
        await processor.waitUntilIdle()
        #expect(processor.activeSessionID != firstSession)
        #expect(emitter.sent.map(\.timestamp).last == ownClock.now)
        #expect(emitter.sentNames.filter { $0 == Keys.sessionStartedEvent }.count == 2)
    }

    @Test func customTimeoutIsHonoured() async throws {
        let clock = ManualClock()
        let lifecycle = AppLifecycle()
        let processor = SessionTrackingProcessor(sessionTimeout: 30, lifecycle: lifecycle, clock: clock)
        await processor.start(
            storage: InMemoryProcessorStorage(),
            logger: RecordingLogger(),
            emitter: RecordingEmitter(clock: clock)
        )
        let firstSession = processor.activeSessionID
        lifecycle.send(.didEnterBackground)
        clock.advance(by: 31)
        lifecycle.send(.willEnterForeground)
        await processor.waitUntilIdle()
        #expect(processor.activeSessionID != firstSession)
    }

    @Test func newSessionRequestedAlwaysStartsASession() async throws {
        let install = SimulatedInstall()
        let launch = await install.launch()
        let firstSession = launch.processor.activeSessionID
        install.clock.advance(by: 5)

        launch.lifecycle.send(.newSessionRequested)
        await launch.processor.waitUntilIdle()

        #expect(launch.processor.activeSessionID != firstSession)
        #expect(
            launch.emitter.sentNames == [
                Keys.newInstallDetectedEvent, Keys.sessionStartedEvent, Keys.sessionStartedEvent,
            ]
        )
        let event = try await launch.event()
        #expect(event.sessionID == launch.processor.activeSessionID.uuidString)
        #expect(event.int(Keys.totalSessionsCount) == 2)
        #expect(event.int(Keys.previousSessionSeconds) == 5)
        // The first session of the install ended before any event: no event is marked as the new install.
        #expect(event.bool(Keys.isNewInstall) == nil)
    }

    @Test func foregroundWithoutBackgroundKeepsTheSession() async throws {
        let install = SimulatedInstall()
        let launch = await install.launch()
        let firstSession = launch.processor.activeSessionID
        install.clock.advance(by: 3600)
        launch.lifecycle.send(.willEnterForeground)
        await launch.processor.waitUntilIdle()
        #expect(launch.processor.activeSessionID == firstSession)
    }

    @Test func sessionStartedEventCanBeTurnedOff() async throws {
        let install = SimulatedInstall()
        // A fresh install still reports itself, but no session start.
        let first = await install.launch(sendSessionStartedEvent: false)
        #expect(first.emitter.sentNames == [Keys.newInstallDetectedEvent])
        await first.processor.stop()

        let second = await install.launch(sendSessionStartedEvent: false)
        let firstSession = second.processor.activeSessionID
        second.lifecycle.send(.newSessionRequested)
        second.lifecycle.send(.didEnterBackground)
        install.clock.advance(by: 600)
        second.lifecycle.send(.willEnterForeground)
        await second.processor.waitUntilIdle()

        #expect(second.emitter.sent.isEmpty)
        #expect(second.processor.activeSessionID != firstSession)
        let event = try await second.event()
        #expect(event.int(Keys.totalSessionsCount) == 4)
    }

    /// `start` returns with the session's events queued and the history in the storage: the
    /// client writes the storage to disk right after the processors start, and a program that
    /// exits a moment later must find this session counted at its next launch.
    @Test func startReturnsWithTheHistorySaved() async throws {
        let storage = InMemoryProcessorStorage()
        let emitter = RecordingEmitter(clock: ManualClock(start: Date(timeIntervalSince1970: 1_704_067_200)))
        let processor = SessionTrackingProcessor()
        await processor.start(storage: storage, logger: RecordingLogger(), emitter: emitter)

        #expect(emitter.sentNames == [Keys.newInstallDetectedEvent, Keys.sessionStartedEvent])
        let saved = try #require(await storage.data(forKey: Keys.historyStorageKey))
        let history = try JSONDecoder().decode(StoredHistory.self, from: saved)
        #expect(history.sessions.count == 1)
        #expect(history.sessions[0].start == 1_704_067_200)
    }

    @Test func stopEndsTheLifecycleObservation() async throws {
        let install = SimulatedInstall()
        let launch = await install.launch()
        await launch.processor.stop()
        let session = launch.processor.activeSessionID
        launch.lifecycle.send(.newSessionRequested)
        await launch.processor.waitUntilIdle()
        #expect(launch.processor.activeSessionID == session)
        #expect(launch.emitter.sentNames.count == 2)
    }

    @Test func eventsBeforeStartCarryOnlyTheSessionID() async throws {
        let processor = SessionTrackingProcessor(clock: ManualClock())
        let pipeline = ProcessorPipeline(processors: [processor], finalizer: EventFinalizer(appID: "TEST-APP"))
        let event = try await pipeline.process(EventInput("Early.event"))
        #expect(event.sessionID == processor.activeSessionID.uuidString)
        #expect(event.payload.isEmpty)

        // The session that start opens keeps that id.
        let clock = ManualClock()
        await processor.start(
            storage: InMemoryProcessorStorage(),
            logger: RecordingLogger(),
            emitter: RecordingEmitter(clock: clock)
        )
        #expect(processor.activeSessionID.uuidString == event.sessionID)
    }

    @Test func secondStartIsIgnoredWithAWarning() async throws {
        let install = SimulatedInstall()
        let launch = await install.launch()
        let session = launch.processor.activeSessionID
        await launch.processor.start(storage: install.storage, logger: install.logger, emitter: launch.emitter)
        #expect(launch.processor.activeSessionID == session)
        #expect(launch.emitter.sentNames.count == 2)
        #expect(install.logger.warnings.count == 1)
    }
}

@Suite("SessionTrackingProcessor: retention parameters and history")
struct RetentionTests {
    @Test func averageAndPreviousFromEarlierLaunches() async throws {
        let install = SimulatedInstall()
        try await install.runSession(seconds: 100)
        install.clock.advance(by: 3600)
        try await install.runSession(seconds: 120)
        install.clock.advance(by: 3600)

        let launch = await install.launch()
        let event = try await launch.event()
        #expect(event.int(Keys.totalSessionsCount) == 3)
        #expect(event.int(Keys.averageSessionSeconds) == 110)
        #expect(event.int(Keys.previousSessionSeconds) == 120)
        #expect(event.int(Keys.distinctDaysUsed) == 1)
        #expect(event.bool(Keys.isNewInstall) == nil)
    }

    @Test func averageIsRoundedToWholeSeconds() async throws {
        let install = SimulatedInstall()
        try await install.runSession(seconds: 10)
        try await install.runSession(seconds: 11)
        let event = try await install.launch().event()
        #expect(event.int(Keys.averageSessionSeconds) == 11)  // 10.5 rounds up
        #expect(event.int(Keys.previousSessionSeconds) == 11)
    }

    @Test func previousRunDurationIsSavedWhileEventsFlow() async throws {
        let install = SimulatedInstall()
        let first = await install.launch()
        install.clock.advance(by: 10)
        _ = try await first.event()  // within the save interval: kept in memory only
        install.clock.advance(by: 35)
        _ = try await first.event()  // 45 s after the last save: saved
        await first.processor.waitUntilIdle()
        install.clock.advance(by: 10)
        _ = try await first.event()  // 10 s after the last save: kept in memory only
        await first.processor.waitUntilIdle()
        // The run ends without stop(), terminate or background, as in a crash.
        #expect(try await install.storedHistory().sessions.map(\.seconds) == [45])

        install.clock.advance(by: 600)
        let second = await install.launch()
        let event = try await second.event()
        #expect(event.int(Keys.previousSessionSeconds) == 45)
        #expect(event.int(Keys.totalSessionsCount) == 2)
    }

    @Test(
        "Background, terminate and stop save the session's end",
        arguments: [AppLifecycle.Signal.didEnterBackground, .willTerminate]
    )
    func lifecycleSavesTheSessionEnd(signal: AppLifecycle.Signal) async throws {
        let install = SimulatedInstall()
        let first = await install.launch()
        install.clock.advance(by: 70)
        first.lifecycle.send(signal)
        await first.processor.waitUntilIdle()
        #expect(try await install.storedHistory().sessions.map(\.seconds) == [70])

        install.clock.advance(by: 600)
        let event = try await install.launch().event()
        #expect(event.int(Keys.previousSessionSeconds) == 70)
    }

    @Test func stopSavesTheRunUpToNow() async throws {
        let install = SimulatedInstall()
        let first = await install.launch()
        install.clock.advance(by: 20)
        _ = try await first.event()
        install.clock.advance(by: 80)
        await first.processor.stop()
        #expect(try await install.storedHistory().sessions.map(\.seconds) == [100])
    }

    @Test func stopInTheBackgroundDoesNotCountTheBackgroundTime() async throws {
        let install = SimulatedInstall()
        let first = await install.launch()
        install.clock.advance(by: 30)
        first.lifecycle.send(.didEnterBackground)
        install.clock.advance(by: 200)
        await first.processor.stop()
        #expect(try await install.storedHistory().sessions.map(\.seconds) == [30])
    }

    @Test func pruningAfter90DaysKeepsTheCounts() async throws {
        let install = SimulatedInstall()
        let start = install.clock.now
        try await install.runSession(at: start, seconds: 100)
        try await install.runSession(at: start.addingTimeInterval(1 * oneDay), seconds: 200)
        try await install.runSession(at: start.addingTimeInterval(95 * oneDay), seconds: 50)

        install.clock.set(start.addingTimeInterval(96 * oneDay))
        let launch = await install.launch()
        let event = try await launch.event()
        #expect(event.int(Keys.totalSessionsCount) == 4)
        // Only the day-95 session is still in detail.
        #expect(event.int(Keys.averageSessionSeconds) == 50)
        #expect(event.int(Keys.previousSessionSeconds) == 50)
        #expect(event.int(Keys.distinctDaysUsed) == 4)
        #expect(event.int(Keys.distinctDaysUsedLastMonth) == 2)
        #expect(event.string(Keys.firstSessionDate) == "2024-01-01")

        await launch.processor.waitUntilIdle()  // the start's save
        let stored = try await install.storedHistory()
        #expect(stored.prunedSessionCount == 2)
        #expect(stored.sessions.count == 2)
        #expect(stored.prunedDayCount == 2)
        #expect(stored.days.count == 2)
    }

    @Test func thePreviousSessionSurvivesALongPause() async throws {
        let install = SimulatedInstall()
        let start = install.clock.now
        try await install.runSession(at: start, seconds: 100)
        install.clock.set(start.addingTimeInterval(200 * oneDay))
        let event = try await install.launch().event()
        #expect(event.int(Keys.totalSessionsCount) == 2)
        #expect(event.int(Keys.previousSessionSeconds) == 100)
        #expect(event.int(Keys.averageSessionSeconds) == 100)
        #expect(event.int(Keys.distinctDaysUsed) == 2)
        #expect(event.int(Keys.distinctDaysUsedLastMonth) == 1)
    }

    @Test func distinctDaysOverall() async throws {
        let install = SimulatedInstall()
        try await install.runSession(at: try utc("2024-01-01T10:00:00Z"), seconds: 60)
        try await install.runSession(at: try utc("2024-01-01T15:00:00Z"), seconds: 60)
        try await install.runSession(at: try utc("2024-01-02T09:00:00Z"), seconds: 60)
        try await install.runSession(at: try utc("2024-01-20T12:00:00Z"), seconds: 60)

        install.clock.set(try utc("2024-02-15T12:00:00Z"))
        let event = try await install.launch().event()
        #expect(event.int(Keys.totalSessionsCount) == 5)
        #expect(event.int(Keys.distinctDaysUsed) == 4)  // Jan 1, Jan 2, Jan 20, Feb 15
        #expect(event.int(Keys.distinctDaysUsedLastMonth) == 2)  // Jan 20, Feb 15
    }

    @Test func aSessionOverMidnightCountsTheNewDay() async throws {
        let install = SimulatedInstall(start: try utc("2024-03-10T23:59:00Z"))
        let launch = await install.launch()
        let before = try await launch.event()
        #expect(before.int(Keys.distinctDaysUsed) == 1)

        install.clock.advance(by: 120)
        let after = try await launch.event()
        #expect(after.int(Keys.distinctDaysUsed) == 2)
        #expect(after.int(Keys.distinctDaysUsedLastMonth) == 2)
        #expect(after.int(Keys.totalSessionsCount) == 1)
        await launch.processor.waitUntilIdle()
        #expect(try await install.storedHistory().days.count == 2)
    }

    @Test(
        "Calendar days follow the time-zone offset",
        arguments: [
            ("2024-01-01T23:30:00Z", 0, "2024-01-01"),
            ("2024-01-01T23:30:00Z", 3600, "2024-01-02"),
            ("2024-01-01T03:00:00Z", -5 * 3600, "2023-12-31"),
            ("2024-06-15T20:00:00Z", 5 * 3600 + 45 * 60, "2024-06-16"),
        ]
    )
    func firstSessionDateInTimeZone(instant: String, offset: Int, expected: String) async throws {
        let install = SimulatedInstall(start: try utc(instant))
        let event = try await install.launch(timeZoneOffset: offset).event()
        #expect(event.string(Keys.firstSessionDate) == expected)
    }

    @Test func daysAreCountedInTheConfiguredTimeZone() async throws {
        // 22:00 and 23:30 UTC are one UTC day, but two days at UTC+1.
        let install = SimulatedInstall()
        try await install.runSession(at: try utc("2024-01-01T22:00:00Z"), seconds: 60, timeZoneOffset: 3600)
        install.clock.set(try utc("2024-01-01T23:30:00Z"))
        let event = try await install.launch(timeZoneOffset: 3600).event()
        #expect(event.int(Keys.distinctDaysUsed) == 2)
    }

    @Test(
        "Unreadable history starts fresh with a warning",
        arguments: [
            Data([0xFF, 0x00, 0x13, 0x37]),
            Data("{\"version\":1}".utf8),
            Data(
                "{\"version\":1,\"firstSessionDay\":0,\"prunedSessionCount\":-5,\"prunedDayCount\":0,\"sessions\":[],\"days\":[]}"
                    .utf8
            ),
            // A count with a fraction, and a whole history followed by more.
            Data(
                "{\"version\":1,\"firstSessionDay\":0,\"prunedSessionCount\":1.5,\"prunedDayCount\":0,\"sessions\":[],\"days\":[]}"
                    .utf8
            ),
            Data(
                "{\"version\":1,\"firstSessionDay\":0,\"prunedSessionCount\":0,\"prunedDayCount\":0,\"sessions\":[],\"days\":[]} {}"
                    .utf8
            ),
        ]
    )
    func corruptedHistory(bytes: Data) async throws {
        let install = SimulatedInstall()
        await install.storage.set(bytes, forKey: Keys.historyStorageKey)

        let launch = await install.launch()
        #expect(install.logger.warnings.count == 1)
        #expect(install.logger.warnings.first?.contains("session history") == true)
        // Stored data existed, so this is no new install.
        #expect(launch.emitter.sentNames == [Keys.sessionStartedEvent])
        let event = try await launch.event()
        #expect(event.int(Keys.totalSessionsCount) == 1)
        #expect(event.int(Keys.averageSessionSeconds) == -1)
        #expect(event.bool(Keys.isNewInstall) == nil)
        #expect(event.string(Keys.firstSessionDate) == "2024-01-01")

        // The garbage was replaced by a readable history (the start's save).
        await launch.processor.waitUntilIdle()
        #expect(try await install.storedHistory().sessions.count == 1)
        await launch.processor.stop()
        let next = try await install.launch().event()
        #expect(next.int(Keys.totalSessionsCount) == 2)
        #expect(install.logger.warnings.count == 1)
    }

    /// A history as `JSONEncoder` wrote it before the processor wrote its own (keys in another
    /// order, whitespace, whole numbers for seconds) and with a key a later version might add,
    /// is read whole.
    @Test func aHistoryWrittenByJSONEncoderIsRead() async throws {
        let install = SimulatedInstall()  // 2024-01-01, day 19,723
        let written = """
            { "days" : [ 19720, 19722 ], "prunedDayCount" : 3,
              "sessions" : [ { "seconds" : 120.5, "start" : 1703980800 },
                             { "start" : 1704000000.25, "seconds" : 30 } ],
              "firstSessionDay" : 19700, "addedLater" : { "list" : [ 1, "two", null, true ] },
              "prunedSessionCount" : 4, "version" : 1 }
            """
        await install.storage.set(Data(written.utf8), forKey: Keys.historyStorageKey)

        let launch = await install.launch()
        let event = try await launch.event()
        #expect(install.logger.warnings.isEmpty)
        #expect(launch.emitter.sentNames == [Keys.sessionStartedEvent])
        #expect(event.int(Keys.totalSessionsCount) == 7)  // 4 pruned, 2 kept, this one
        #expect(event.int(Keys.distinctDaysUsed) == 6)  // 3 pruned, 2 kept, today
        #expect(event.string(Keys.firstSessionDate) == "2023-12-09")  // day 19,700
        #expect(event.int(Keys.previousSessionSeconds) == 30)
        #expect(event.int(Keys.averageSessionSeconds) == 75)  // (120.5 + 30) / 2, rounded

        // Saved again in the processor's own writing, which JSONDecoder reads back.
        await launch.processor.waitUntilIdle()
        let stored = try await install.storedHistory()
        #expect(stored.prunedSessionCount == 4)
        #expect(stored.prunedDayCount == 3)
        #expect(stored.firstSessionDay == 19_700)
        #expect(stored.days == [19_720, 19_722, 19_723])
        #expect(stored.sessions.map(\.start) == [1_703_980_800, 1_704_000_000.25, 1_704_067_200])
        #expect(stored.sessions.map(\.seconds) == [120.5, 30, 0])
        await launch.processor.stop()
    }

    @Test func storedFormat() async throws {
        let install = SimulatedInstall(start: try utc("2024-06-15T14:00:00Z"))
        try await install.runSession(seconds: 42)
        let stored = try await install.storedHistory()
        #expect(stored.version == 1)
        #expect(stored.firstSessionDay == 19_889)  // 2024-06-15
        #expect(stored.days == [19_889])
        #expect(stored.sessions.count == 1)
        #expect(stored.sessions.first?.start == 1_718_460_000)
        #expect(stored.sessions.first?.seconds == 42)
        #expect(stored.prunedSessionCount == 0)
    }
}
