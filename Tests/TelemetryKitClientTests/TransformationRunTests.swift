import Foundation
import TelemetryKit
import TelemetryKitSupport
import TelemetryKitTesting
import Testing

/// How the client runs transformations: the synchronous path first, async only when needed.
struct TransformationRunTests {
    /// Counts its async calls; adds `key` either synchronously or asynchronously.
    struct Adding: EventTransformation {
        let id: String
        let key: String
        let immediate: Bool
        let asyncCalls = Locked(0)
        var scope: TransformationScope { .afterProcessors }

        func transform(_ event: consuming Event, destination: String?) async -> Event? {
            asyncCalls.withLock { $0 += 1 }
            event.setPayloadValue(.string(id), forKey: key)
            return event
        }

        func transformImmediately(_ event: inout Event, destination: String?) -> ImmediateTransformation {
            guard immediate else { return .needsAsync }
            event.setPayloadValue(.string(id), forKey: key)
            return .kept
        }
    }

    struct DropImmediately: EventTransformation {
        let id = "drop"
        var scope: TransformationScope { .afterProcessors }
        func transform(_ event: consuming Event, destination: String?) async -> Event? {
            Issue.record("the async path must not run")
            return event
        }
        func transformImmediately(_ event: inout Event, destination: String?) -> ImmediateTransformation {
            event.payloadValue(forKey: "drop") == .bool(true) ? .dropped : .kept
        }
    }

    /// Only the async requirement, like a conformance written before the fast path existed.
    struct AsyncOnly: EventTransformation {
        let id = "async-only"
        var scope: TransformationScope { .afterProcessors }
        func transform(_ event: Event, destination: String?) async -> Event? {
            var event = event
            event.setPayloadValue(.string(destination ?? "none"), forKey: "destination")
            return event
        }
    }

    static func event(_ payload: [String: PayloadValue]) -> Event {
        Event(appID: "APP", type: "T", clientUser: "u", receivedAt: Date(timeIntervalSince1970: 1), payload: payload)
    }

    @Test func mixesSynchronousAndAsyncTransformationsInOrder() async {
        let sync = Adding(id: "sync", key: "k", immediate: true)
        let later = Adding(id: "async", key: "k", immediate: false)
        let chain: [any EventTransformation] = [sync, DropImmediately(), AsyncOnly(), later]
        let result = await chain.run(on: Self.event(["a": 1]), destination: "D")
        #expect(result?.payload == ["a": 1, "k": "async", "destination": "D"])
        #expect(sync.asyncCalls.current == 0)
        #expect(later.asyncCalls.current == 1)
    }

    @Test func aSynchronousDropStopsTheChain() async {
        let after = Adding(id: "after", key: "k", immediate: false)
        let chain: [any EventTransformation] = [DropImmediately(), after]
        #expect(await chain.run(on: Self.event(["drop": true]), destination: nil) == nil)
        #expect(after.asyncCalls.current == 0)
    }

    @Test func theClientUsesTheSynchronousPath() async {
        let sync = Adding(id: "sync", key: "tagged", immediate: true)
        let harness = await TestHarness.make(transformations: [sync, DropImmediately()])
        harness.client.event("Kept")
        harness.client.event("Dropped", parameters: ["drop": true])
        await harness.client.flush()
        #expect(harness.spy.deliveredEvents.map(\.type) == ["Kept"])
        #expect(harness.spy.deliveredEvents.first?.payload["tagged"] == "sync")
        #expect(sync.asyncCalls.current == 0)
        #expect(await harness.client.stats.filtered == 1)
    }
}
