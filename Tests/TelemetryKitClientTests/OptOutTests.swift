import Foundation
import TelemetryKit
import TelemetryKitTesting
import Testing

struct OptOutTests {
    @Test func whileDisabledNothingIsProcessedCachedOrSent() async {
        let harness = await TestHarness.make()
        harness.client.event("Before")
        await harness.client.flush()
        await harness.client.setAnalyticsDisabled(true)
        #expect(harness.client.isAnalyticsDisabled)
        harness.client.event("Dropped.fireAndForget")
        await harness.client.send(EventInput("Dropped.awaited"))
        harness.client.event(
            EventInput("TelemetryDeck.Activation.onboardingCompleted", skipsReservedPrefixValidation: true)
        )
        await harness.client.flush()
        #expect(harness.spy.deliveredEvents.map(\.type) == ["Before"])
        #expect(await harness.cache.count() == 0)
        #expect(harness.client.droppedWhileAnalyticsDisabled == 3)
        #expect(await harness.client.stats.processed == 1)
    }

    @Test func disablingDiscardsQueuedEventsAndEnablingDoesNotResurrectThem() async {
        let harness = await TestHarness.make()
        harness.client.event("Queued.1")
        harness.client.event("Queued.2")
        await harness.client.waitUntilProcessed()
        #expect(await harness.cache.count() == 2)
        await harness.client.setAnalyticsDisabled(true)
        #expect(await harness.cache.count() == 0)
        harness.client.event("WhileDisabled")
        await harness.client.setAnalyticsDisabled(false)
        #expect(harness.client.isAnalyticsDisabled == false)
        harness.client.event("AfterEnabling")
        await harness.client.flush()
        #expect(harness.spy.deliveredEvents.map(\.type) == ["AfterEnabling"])
        #expect(harness.client.droppedWhileAnalyticsDisabled == 1)
    }

    @Test func eventsStillInTheIntakeWhenDisablingAreDropped() async {
        let harness = await TestHarness.make()
        for n in 0..<500 {
            harness.client.event("Burst", parameters: ["n": n])
        }
        await harness.client.setAnalyticsDisabled(true)
        await harness.client.setAnalyticsDisabled(false)
        await harness.client.flush()
        #expect(harness.spy.deliveredEvents.isEmpty)
        #expect(await harness.cache.count() == 0)
    }

    @Test func theChoiceIsPersistedAndReadAtTheNextStart() async {
        let storage = InMemoryProcessorStorage()
        let first = await TestHarness.make(storage: storage)
        await first.client.setAnalyticsDisabled(true)
        await first.client.shutdown()
        #expect(await storage.bool(forKey: TelemetryStorageKeys.analyticsDisabled) == true)

        // Next launch: events sent before start wait in the pre-start buffer, then are dropped.
        let second = await TestHarness.make(storage: storage, start: false)
        second.client.event("BeforeStart")
        await second.client.start()
        #expect(second.client.isAnalyticsDisabled)
        second.client.event("AfterStart")
        await second.client.flush()
        #expect(second.spy.deliveredEvents.isEmpty)
        #expect(second.client.droppedWhileAnalyticsDisabled == 2)

        await second.client.setAnalyticsDisabled(false)
        second.client.event("Enabled")
        await second.client.flush()
        #expect(second.spy.deliveredEvents.map(\.type) == ["Enabled"])
        await second.client.shutdown()

        let third = await TestHarness.make(storage: storage)
        #expect(third.client.isAnalyticsDisabled == false)
        #expect(await storage.bool(forKey: TelemetryStorageKeys.analyticsDisabled) == false)
    }

    @Test func disablingBeforeStartWinsOverThePersistedValue() async {
        let storage = InMemoryProcessorStorage()
        await storage.set(false, forKey: TelemetryStorageKeys.analyticsDisabled)
        let harness = await TestHarness.make(storage: storage, start: false)
        await harness.client.setAnalyticsDisabled(true)
        harness.client.event("BeforeStart")
        await harness.client.start()
        harness.client.event("AfterStart")
        await harness.client.flush()
        #expect(harness.spy.deliveredEvents.isEmpty)
        #expect(harness.client.isAnalyticsDisabled)
        #expect(await storage.bool(forKey: TelemetryStorageKeys.analyticsDisabled) == true)
    }
}
