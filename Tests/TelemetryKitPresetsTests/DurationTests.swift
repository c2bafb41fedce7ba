import Foundation
import TelemetryKit
import TelemetryKitPresets
import TelemetryKitTesting
import Testing

struct DurationTests {
    private let durationKey = DefaultParams.Event.durationInSeconds.rawValue

    /// Stops `name`, flushes, and returns the one delivered event of that name.
    private func stopAndDeliver(
        _ name: String,
        parameters: EventParameters = [:],
        _ harness: TestHarness
    ) async throws -> Event {
        harness.client.stopAndSendDurationEvent(name, parameters: parameters)
        await harness.client.flush()
        let events = harness.spy.deliveredEvents.filter { $0.type == name }
        #expect(events.count == 1)
        return try #require(events.first)
    }

    @Test func aTenthOfASecondIsSentAsFloatValueAndParameter() async throws {
        let harness = await TestHarness.make()
        harness.client.startDurationEvent("Checkout.duration", parameters: ["cart": 3])
        harness.clock.advance(by: 0.1)
        let event = try await stopAndDeliver("Checkout.duration", parameters: ["result": "paid"], harness)
        #expect(event.floatValue == 0.1)
        #expect(event.payload[durationKey] == .double(0.1))
        #expect(event.payload["cart"] == .int(3))
        #expect(event.payload["result"] == .string("paid"))
        // Sent with the stop time (receivedAt keeps milliseconds).
        #expect(abs(event.receivedAt.timeIntervalSince(harness.clock.now)) < 0.001)
        #expect(harness.client.runningDurationEvents.isEmpty)
    }

    @Test func millisecondPrecision() async throws {
        let harness = await TestHarness.make()
        harness.client.startDurationEvent("Load")
        harness.clock.advance(by: 1.23456)
        let event = try await stopAndDeliver("Load", harness)
        #expect(event.floatValue == 1.235)
        #expect(event.payload[durationKey] == .double(1.235))
    }

    @Test func stopParametersWinOverStartParameters() async throws {
        let harness = await TestHarness.make()
        harness.client.startDurationEvent("Upload", parameters: ["step": "start", "kept": true])
        harness.clock.advance(by: 2)
        let event = try await stopAndDeliver("Upload", parameters: ["step": "done"], harness)
        #expect(event.payload["step"] == .string("done"))
        #expect(event.payload["kept"] == .bool(true))
        #expect(event.floatValue == 2)
    }

    @Test func backgroundTimeIsExcluded() async throws {
        let harness = await TestHarness.make()
        harness.client.startDurationEvent("Reading")
        harness.clock.advance(by: 2)
        harness.client.lifecycle.send(.didEnterBackground)
        harness.clock.advance(by: 60)
        harness.client.lifecycle.send(.willEnterForeground)
        harness.clock.advance(by: 1)
        let event = try await stopAndDeliver("Reading", harness)
        #expect(event.floatValue == 3)
    }

    @Test func backgroundTimeIsIncludedWhenAsked() async throws {
        let harness = await TestHarness.make()
        harness.client.startDurationEvent("Download", includeBackgroundTime: true)
        harness.clock.advance(by: 2)
        harness.client.lifecycle.send(.didEnterBackground)
        harness.clock.advance(by: 60)
        harness.client.lifecycle.send(.willEnterForeground)
        harness.clock.advance(by: 1)
        let event = try await stopAndDeliver("Download", harness)
        #expect(event.floatValue == 63)
    }

    @Test func stoppedInTheBackgroundCountsOnlyForegroundTime() async throws {
        let harness = await TestHarness.make()
        harness.client.startDurationEvent("Call")
        harness.clock.advance(by: 1.5)
        harness.client.lifecycle.send(.didEnterBackground)
        harness.clock.advance(by: 10)
        let event = try await stopAndDeliver("Call", harness)
        #expect(event.floatValue == 1.5)
    }

    @Test func startedInTheBackgroundCountsFromTheForeground() async throws {
        let harness = await TestHarness.make()
        harness.client.lifecycle.send(.didEnterBackground)
        harness.clock.advance(by: 30)
        harness.client.startDurationEvent("Sync")
        harness.clock.advance(by: 5)
        harness.client.lifecycle.send(.willEnterForeground)
        harness.clock.advance(by: 2)
        let event = try await stopAndDeliver("Sync", harness)
        #expect(event.floatValue == 2)
    }

    @Test func twoBackgroundPeriodsAreBothExcluded() async throws {
        let harness = await TestHarness.make()
        harness.client.startDurationEvent("Session.task")
        for _ in 0..<2 {
            harness.clock.advance(by: 1)
            harness.client.lifecycle.send(.didEnterBackground)
            harness.clock.advance(by: 100)
            harness.client.lifecycle.send(.willEnterForeground)
        }
        harness.clock.advance(by: 0.25)
        let event = try await stopAndDeliver("Session.task", harness)
        #expect(event.floatValue == 2.25)
    }

    @Test func cancelledDurationSendsNothingAndStopWarns() async {
        let harness = await TestHarness.make()
        harness.client.startDurationEvent("Abandoned")
        harness.clock.advance(by: 4)
        harness.client.cancelDurationEvent("Abandoned")
        harness.client.stopAndSendDurationEvent("Abandoned")
        await harness.client.flush()
        #expect(harness.spy.deliveredEvents.isEmpty)
        #expect(
            harness.logger.warnings == [
                "stopAndSendDurationEvent: no duration named 'Abandoned' is running; nothing was sent"
            ]
        )
    }

    @Test func startingAgainRestartsTheDuration() async throws {
        let harness = await TestHarness.make()
        harness.client.startDurationEvent("Step", parameters: ["n": 1])
        harness.clock.advance(by: 5)
        harness.client.startDurationEvent("Step", parameters: ["n": 2])
        harness.clock.advance(by: 1)
        let event = try await stopAndDeliver("Step", harness)
        #expect(event.floatValue == 1)
        #expect(event.payload["n"] == .int(2))
    }

    @Test func aRunningDurationSurvivesARestartWithoutTheTimeInBetween() async throws {
        let storage = InMemoryProcessorStorage()
        let clock = ManualClock()
        let first = await TestHarness.make(storage: storage, clock: clock)
        first.client.startDurationEvent("Onboarding", parameters: ["ratio": 3.0, "flow": "A"])
        first.client.startDurationEvent("Onboarding.wallClock", includeBackgroundTime: true)
        clock.advance(by: 2)
        await first.client.shutdown()
        #expect(await storage.data(forKey: TelemetryStorageKeys.runningDurations) != nil)

        clock.advance(by: 30)  // the app is not running
        let second = await TestHarness.make(storage: storage, clock: clock)
        #expect(second.client.runningDurationEvents == ["Onboarding", "Onboarding.wallClock"])
        clock.advance(by: 1)
        let event = try await stopAndDeliver("Onboarding", second)
        #expect(event.floatValue == 3)
        // Types survive storage: 3.0 stays a double.
        #expect(event.payload["ratio"] == .double(3.0))
        #expect(event.payload["flow"] == .string("A"))
        let wallClock = try await stopAndDeliver("Onboarding.wallClock", second)
        #expect(wallClock.floatValue == 33)
    }

    @Test func aDurationSurvivesBeingKilledInTheBackground() async throws {
        let storage = InMemoryProcessorStorage()
        let clock = ManualClock()
        let first = await TestHarness.make(storage: storage, clock: clock)
        first.client.startDurationEvent("Editing")
        clock.advance(by: 4)
        first.client.lifecycle.send(.didEnterBackground)
        await first.client.durations.waitUntilPersisted()
        // Killed in the background: no shutdown.
        clock.advance(by: 600)
        let second = await TestHarness.make(storage: storage, clock: clock)
        clock.advance(by: 0.5)
        let event = try await stopAndDeliver("Editing", second)
        #expect(event.floatValue == 4.5)
    }

    @Test func stoppedDurationsAreRemovedFromStorage() async {
        let storage = InMemoryProcessorStorage()
        let harness = await TestHarness.make(storage: storage)
        harness.client.startDurationEvent("Short")
        await harness.client.durations.waitUntilPersisted()
        #expect(await storage.data(forKey: TelemetryStorageKeys.runningDurations) != nil)
        harness.client.stopAndSendDurationEvent("Short")
        await harness.client.durations.waitUntilPersisted()
        #expect(await storage.data(forKey: TelemetryStorageKeys.runningDurations) == nil)
    }

    @Test func unreadableStoredDurationsAreDiscardedWithAWarning() async {
        let storage = InMemoryProcessorStorage()
        await storage.set(Data("not json".utf8), forKey: TelemetryStorageKeys.runningDurations)
        let harness = await TestHarness.make(storage: storage)
        #expect(harness.client.runningDurationEvents.isEmpty)
        #expect(harness.logger.warnings.contains { $0.hasPrefix("running durations could not be read") })
    }

    @Test func aDurationStartedBeforeStartIsKept() async throws {
        let harness = await TestHarness.make(start: false)
        harness.client.startDurationEvent("Launch")
        harness.clock.advance(by: 0.75)
        await harness.client.start()
        let event = try await stopAndDeliver("Launch", harness)
        #expect(event.floatValue == 0.75)
    }

    @Test func durationsStoppedWhileDisabledAreNotSent() async {
        let harness = await TestHarness.make()
        harness.client.startDurationEvent("Task")
        await harness.client.setAnalyticsDisabled(true)
        harness.clock.advance(by: 1)
        harness.client.stopAndSendDurationEvent("Task")
        await harness.client.flush()
        #expect(harness.spy.deliveredEvents.isEmpty)
        #expect(harness.client.droppedWhileAnalyticsDisabled == 1)
    }
}
