import TelemetryKit
import TelemetryKitTesting
import Testing

@testable import TelemetryKitAccessibility

struct AccessibilityClientTests {
    @Test func cacheAgesWithTheClientsClock() async throws {
        let source = CountingSource(AccessibilitySnapshot(isReduceMotionEnabled: true))
        let processor = AccessibilityProcessor(snapshot: source.source)
        let harness = await TestHarness.make(processors: [processor])
        #expect(source.readings == 1)  // read once in start

        await harness.client.send(EventInput("a"))
        harness.clock.advance(by: 3_599)
        await harness.client.send(EventInput("b"))
        #expect(source.readings == 1)
        harness.clock.advance(by: 1)
        source.set(AccessibilitySnapshot(isReduceMotionEnabled: false))
        // The event that finds the reading due gets the last one and starts the next in
        // the background; later events get the new one.
        await harness.client.send(EventInput("c"))
        await processor.readingFinished()
        #expect(source.readings == 2)
        await harness.client.send(EventInput("d"))

        await harness.client.flush()
        let values = harness.spy.deliveredEvents.map { $0.payload[AccessibilityProcessor.Keys.isReduceMotionEnabled] }
        #expect(values == [.bool(true), .bool(true), .bool(true), .bool(false)])
        await harness.client.shutdown()
    }
}
