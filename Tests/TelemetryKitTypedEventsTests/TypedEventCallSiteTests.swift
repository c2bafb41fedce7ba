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

    /// The wire body of `event`, as the service reads it: the members, with the payload's in
    /// key order. (A Swift dictionary's iteration order differs from instance to instance —
    /// between two identical untyped calls too — so the payload's members leave in varying
    /// order; everything else is compared byte for byte.)
    private func wireMembers(_ event: Event) -> (bytes: [UInt8], payload: [(String, String)]) {
        var withoutPayload = event
        for key in event.payload.keys { withoutPayload.setPayloadValue(nil, forKey: key) }
        let payload = event.payload.sorted { $0.key < $1.key }.map { key, value -> (String, String) in
            var single = withoutPayload
            single.setPayloadValue(value, forKey: key)
            return (key, String(decoding: EventWireEncoder.encode([single]), as: UTF8.self))
        }
        return (EventWireEncoder.encode([withoutPayload]), payload)
    }

    @Test func theWireBytesAreThoseOfTheUntypedCall() async throws {
        let harness = await TestHarness.make()
        await harness.client.send(EventInput(CheckoutCompleted.example, timestamp: timestamp))
        await harness.client.send(
            EventInput(
                "Checkout.completed",
                parameters: CheckoutCompleted.exampleParameters,
                floatValue: 19.99,
                timestamp: timestamp
            )
        )
        await harness.client.send(
            EventInput(Checkout.completed(items: 2, coupon: nil, floatValue: 9.5), timestamp: timestamp)
        )
        await harness.client.send(
            EventInput("Checkout.completed", parameters: ["items": 2], floatValue: 9.5, timestamp: timestamp)
        )
        await harness.client.flush()

        let events = harness.spy.deliveredEvents
        try #require(events.count == 4)
        let (typedStruct, untypedStruct) = (wireMembers(events[0]), wireMembers(events[1]))
        #expect(typedStruct.bytes == untypedStruct.bytes)
        #expect(typedStruct.payload.map(\.0) == untypedStruct.payload.map(\.0))
        #expect(typedStruct.payload.map(\.1) == untypedStruct.payload.map(\.1))
        #expect(typedStruct.payload.count == 9)
        // The whole bodies: the same bytes, in another order only within the payload.
        let (typedBody, untypedBody) = (EventWireEncoder.encode([events[0]]), EventWireEncoder.encode([events[1]]))
        #expect(typedBody.sorted() == untypedBody.sorted())
        // One payload member: the whole body is byte for byte the untyped call's.
        #expect(EventWireEncoder.encode([events[2]]) == EventWireEncoder.encode([events[3]]))
        let body = String(decoding: EventWireEncoder.encode([events[2]]), as: UTF8.self)
        #expect(body.contains(#""type":"Checkout.completed""#))
        #expect(body.contains(#""payload":{"items":2}"#))
        #expect(body.contains(#""floatValue":9.5"#))
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
        let stats = await harness.client.stats
        #expect(stats.filtered == 1)
        await harness.client.shutdown()
    }
}
#endif
