#if TypedEvents
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TelemetryKitComposable
import TelemetryKitHTTP
import TelemetryKitTesting
import TelemetryKitTrackingPlan
import TelemetryKitTypedEvents
import Testing

/// Typed events at every call site outside the facade: the same events as the untyped calls.
struct TypedEventCallSiteTests {
    let timestamp = Date(timeIntervalSince1970: 1_718_460_000.5)

    @Test func eventInputIsTheUntypedInput() {
        let typed = EventInput(CheckoutCompleted.example, customUserID: "u-1", timestamp: timestamp)
        let untyped = EventInput(
            "Checkout.completed",
            parameters: CheckoutCompleted.exampleParameters,
            floatValue: 19.99,
            customUserID: "u-1",
            timestamp: timestamp
        )

        #expect(typed == untyped)
    }

    @Test func theWireBytesAreThoseOfTheUntypedCall() async throws {
        let harness = await TestHarness.make()
        await harness.client.send(EventInput(CheckoutCompleted.example, timestamp: timestamp))
        await harness.client.send(
            "Checkout.completed",
            parameters: CheckoutCompleted.exampleParameters,
            floatValue: 19.99
        )
        await harness.client.send(EventInput(Checkout.completed(items: 2, coupon: nil, floatValue: 9.5), timestamp: timestamp))
        await harness.client.send(EventInput("Checkout.completed", parameters: ["items": 2], floatValue: 9.5, timestamp: timestamp))
        await harness.client.flush()

        let events = harness.spy.deliveredEvents
        try #require(events.count == 4)
        var untypedStruct = events[1]
        untypedStruct.receivedAt = events[0].receivedAt  // the untyped call stamped its own time
        #expect(EventWireEncoder.encode([events[0]]) == EventWireEncoder.encode([untypedStruct]))
        #expect(EventWireEncoder.encode([events[2]]) == EventWireEncoder.encode([events[3]]))
        let body = String(decoding: EventWireEncoder.encode([events[2]]), as: UTF8.self)
        #expect(body.contains(#""type":"Checkout.completed""#))
        #expect(body.contains(#""floatValue":9.5"#))
        #expect(body.contains(#""items":2"#))
        await harness.client.shutdown()
    }

    @Test func theClientSendsTypedEventsFireAndForgetAndAwaited() async throws {
        let harness = await TestHarness.make()
        harness.client.event(Checkout.started(items: 4))
        let outcome = await harness.client.send(Checkout.abandoned, customUserID: "u-9")
        await harness.client.flush()

        #expect(outcome == .cached)
        let events = harness.spy.deliveredEvents
        #expect(events.map(\.type) == ["Checkout.started", "Checkout.abandonedCart"])
        #expect(events.first?.payload == ["items": .int(4)])
        await harness.client.shutdown()
    }

    @Test func theComposableClientSendsTypedEventsThroughTelemetry() async throws {
        let harness = await TestHarness.make()
        let analytics = AnalyticsClient.telemetry(harness.client)

        analytics.send(CheckoutCompleted.example)
        analytics.send(.typedEvent(Checkout.started(items: 1)))
        await harness.client.flush()

        let events = harness.spy.deliveredEvents
        #expect(events.map(\.type) == ["Checkout.completed", "Checkout.started"])
        #expect(events.first?.payload == CheckoutCompleted.exampleParameters.values)
        #expect(events.first?.floatValue == 19.99)
        await harness.client.shutdown()
    }

    @Test func typedAnalyticsDataComparesAndPrintsByWhatItSends() {
        let data = AnalyticsData.typedEvent(Checkout.completed(items: 2, coupon: "A", floatValue: 9.5))

        #expect(data == .typedEvent(Checkout.completed(items: 2, coupon: "A", floatValue: 9.5)))
        #expect(data != .typedEvent(Checkout.completed(items: 3, coupon: "A", floatValue: 9.5)))
        #expect(data != .event(name: "Checkout.completed", properties: ["items": "2", "coupon": "A"]))
        #expect(data.description == "typedEvent(Checkout.completed, [coupon: A, items: 2], floatValue: 9.5)")
        #expect(AnalyticsData.typedEvent(Checkout.abandoned).description == "typedEvent(Checkout.abandonedCart)")
    }

    @Test func theProcessorLetsTypedEventsThroughAndCatchesTheirUntypedTwins() async throws {
        let processor = TrackingPlanProcessor(plan: TrackingPlan(Checkout.self), onViolation: .drop)
        let harness = await TestHarness.make(processors: [processor])

        harness.client.event(Checkout.started(items: 1))
        harness.client.event("Checkout.started", parameters: ["items": "one"])
        await harness.client.flush()

        #expect(harness.spy.deliveredEvents.map(\.payload) == [["items": .int(1)]])
        #expect(harness.client.stats.filtered == 1)
        await harness.client.shutdown()
    }
}
#endif
