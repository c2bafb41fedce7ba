import Foundation
import TelemetryKit
import TelemetryKitSupport
import TelemetryKitTesting
import Testing

/// How the client runs transformations: in order, each on the caller's executor.
struct TransformationRunTests {
    /// Stands for the main actor: app code that runs transformations from its own executor,
    /// which counts the jobs enqueued on it (see ``CallerExecutorTests``).
    actor Caller {
        let executor = CallerExecutorTests.CountingExecutor()
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

        func run(_ chain: [any EventTransformation]) async -> Event? {
            await chain.run(on: TransformationRunTests.event([:]), destination: nil)
        }
    }

    /// Sets `key` to its id, and counts its calls.
    struct Adding: EventTransformation {
        let id: String
        let key: String
        let calls = Locked(0)
        var scope: TransformationScope { .afterProcessors }

        func transform(_ event: consuming Event, destination: String?) async -> Event? {
            calls.withLock { $0 += 1 }
            event.setPayloadValue(.string(id), forKey: key)
            return event
        }
    }

    struct Dropping: EventTransformation {
        let id = "drop"
        var scope: TransformationScope { .afterProcessors }
        func transform(_ event: consuming Event, destination: String?) async -> Event? {
            event.payloadValue(forKey: "drop") == .bool(true) ? nil : event
        }
    }

    /// A plain `Event` parameter, as a conformance may declare it.
    struct PlainParameter: EventTransformation {
        let id = "plain"
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

    @Test func runsTransformationsInArrayOrder() async {
        let first = Adding(id: "first", key: "k")
        let later = Adding(id: "later", key: "k")
        let chain: [any EventTransformation] = [first, Dropping(), PlainParameter(), later]
        let result = await chain.run(on: Self.event(["a": 1]), destination: "D")
        #expect(result?.payload == ["a": 1, "k": "later", "destination": "D"])
    }

    @Test func aDropStopsTheChain() async {
        let after = Adding(id: "after", key: "k")
        let chain: [any EventTransformation] = [Dropping(), after]
        #expect(await chain.run(on: Self.event(["drop": true]), destination: nil) == nil)
        #expect(after.calls.current == 0)
    }

    /// `transform` is `nonisolated(nonsending)`: run from an actor (the main actor in an
    /// app), a plain `async` conformance stays on it.
    @Test func transformationsRunOnTheCallersExecutor() async {
        let caller = Caller()
        let result = await caller.run([Adding(id: "a", key: "k"), Adding(id: "b", key: "l")])
        #expect(result?.payload == ["k": "a", "l": "b"])
        // One job: entering the actor. A transformation that ran elsewhere would add one to
        // come back.
        #expect(caller.executor.enqueued == 1)
    }

    @Test func theClientRunsThemAndCountsADropAsFiltered() async {
        let adding = Adding(id: "tag", key: "tagged")
        let harness = await TestHarness.make(transformations: [adding, Dropping()])
        harness.client.event("Kept")
        harness.client.event("Dropped", parameters: ["drop": true])
        await harness.client.flush()
        #expect(harness.spy.deliveredEvents.map(\.type) == ["Kept"])
        #expect(harness.spy.deliveredEvents.first?.payload["tagged"] == "tag")
        #expect(await harness.client.stats.filtered == 1)
    }
}
