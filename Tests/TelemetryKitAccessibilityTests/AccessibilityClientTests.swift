import TelemetryKit
import TelemetryKitAccessibility
import TelemetryKitTesting
import Testing

struct AccessibilityClientTests {
    @Test func cacheAgesWithTheClientsClock() async throws {
        let source = CountingSource(AccessibilitySnapshot(isReduceMotionEnabled: true))
        let harness = await TestHarness.make(processors: [AccessibilityProcessor(snapshot: source.source)])
        #expect(source.readings == 1)  // read once in start

        await harness.client.send(EventInput("a"))
        harness.clock.advance(by: 3_599)
        await harness.client.send(EventInput("b"))
        #expect(source.readings == 1)
        harness.clock.advance(by: 1)
        source.set(AccessibilitySnapshot(isReduceMotionEnabled: false))
        await harness.client.send(EventInput("c"))
        #expect(source.readings == 2)

        await harness.client.flush()
        let values = harness.spy.deliveredEvents.map { $0.payload[AccessibilityProcessor.Keys.isReduceMotionEnabled] }
        #expect(values == [.bool(true), .bool(true), .bool(false)])
        await harness.client.shutdown()
    }
}
