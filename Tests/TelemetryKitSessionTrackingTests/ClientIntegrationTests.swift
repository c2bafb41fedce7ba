import TelemetryKit
import TelemetryKitSessionTracking
import TelemetryKitTesting
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

@Suite("SessionTrackingProcessor in a TelemetryClient")
struct ClientIntegrationTests {
    @Test func sessionsThroughTheClientsLifecycleAndAcrossLaunches() async throws {
        let storage = InMemoryProcessorStorage()
        let clock = ManualClock()
        let processor = SessionTrackingProcessor(timeZoneOffset: 0)
        let harness = await TestHarness.make(processors: [processor], storage: storage, clock: clock)
        let client = harness.client

        client.event("App.opened")
        await client.flush()
        let opening = harness.spy.deliveredEvents
        #expect(opening.map(\.type) == [Keys.newInstallDetectedEvent, Keys.sessionStartedEvent, "App.opened"])
        #expect(opening.map { $0.bool(Keys.isNewInstall) } == [true, nil, nil])
        let firstSession = try #require(opening.first?.sessionID)
        #expect(opening.allSatisfy { $0.sessionID == firstSession })
        #expect(opening.allSatisfy { $0.int(Keys.totalSessionsCount) == 1 })
        harness.spy.reset()

        clock.advance(by: 50)
        client.lifecycle.send(.didEnterBackground)
        clock.advance(by: 360)
        client.lifecycle.send(.willEnterForeground)
        await processor.waitUntilIdle()
        client.event("App.resumed")
        await client.flush()
        let resumed = harness.spy.deliveredEvents
        #expect(resumed.map(\.type) == [Keys.sessionStartedEvent, "App.resumed"])
        let secondSession = try #require(resumed.first?.sessionID)
        #expect(secondSession != firstSession)
        #expect(resumed.allSatisfy { $0.sessionID == secondSession })
        #expect(resumed.last?.int(Keys.totalSessionsCount) == 2)
        #expect(resumed.last?.int(Keys.previousSessionSeconds) == 50)
        harness.spy.reset()

        clock.advance(by: 20)
        await client.shutdown()
        #expect(harness.logger.warnings.isEmpty)

        // The next launch on the same storage knows both sessions and their lengths.
        clock.advance(by: 3600)
        let nextLaunch = await TestHarness.make(
            processors: [SessionTrackingProcessor(timeZoneOffset: 0)],
            storage: storage,
            clock: clock
        )
        nextLaunch.client.event("App.opened")
        await nextLaunch.client.flush()
        let next = nextLaunch.spy.deliveredEvents
        #expect(next.map(\.type) == [Keys.sessionStartedEvent, "App.opened"])
        #expect(next.last?.int(Keys.totalSessionsCount) == 3)
        #expect(next.last?.int(Keys.previousSessionSeconds) == 20)
        #expect(next.last?.int(Keys.averageSessionSeconds) == 35)
        #expect(next.last?.bool(Keys.isNewInstall) == nil)
        await nextLaunch.client.shutdown()
    }

    @Test func newSessionOnTheClient() async throws {
        let processor = SessionTrackingProcessor(timeZoneOffset: 0)
        let harness = await TestHarness.make(processors: [processor])
        let firstSession = processor.activeSessionID
        harness.client.newSession()
        await processor.waitUntilIdle()
        harness.client.event("After.newSession")
        await harness.client.flush()
        let events = harness.spy.deliveredEvents
        #expect(
            events.map(\.type) == [
                Keys.newInstallDetectedEvent, Keys.sessionStartedEvent, Keys.sessionStartedEvent, "After.newSession",
            ]
        )
        #expect(processor.activeSessionID != firstSession)
        #expect(events.last?.sessionID == processor.activeSessionID.uuidString)
        #expect(events.last?.int(Keys.totalSessionsCount) == 2)
        await harness.client.shutdown()
    }
}
