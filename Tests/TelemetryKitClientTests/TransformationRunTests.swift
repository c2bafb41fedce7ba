import Dispatch
import Foundation
import TelemetryKit
import TelemetryKitSupport
import TelemetryKitTesting
import Testing

/// How the client runs transformations: in order, each on the caller's executor.
struct TransformationRunTests {
    /// Marks the queue behind ``Caller``'s executor.
    static let callerQueueKey = DispatchSpecificKey<Bool>()

    /// A serial executor on a dispatch queue that the transformation can recognise.
    final class QueueExecutor: SerialExecutor {
        let queue: DispatchQueue

        init() {
            queue = DispatchQueue(label: "TransformationRunTests")
            queue.setSpecific(key: TransformationRunTests.callerQueueKey, value: true)
        }

        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            let executor = asUnownedSerialExecutor()
            queue.async { job.runSynchronously(on: executor) }
        }
    }

    /// Stands for the main actor: app code that runs transformations from its own executor.
    actor Caller {
        let executor = QueueExecutor()
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

        func run(_ chain: [any EventTransformation]) async -> Event? {
            await chain.run(on: TransformationRunTests.event([:]), destination: nil)
        }
    }

    /// Sets `key` to its id, and records whether it ran on ``Caller``'s executor.
    struct Adding: EventTransformation {
        let id: String
        let key: String
        let onCallersExecutor = Locked<[Bool]>([])
        var scope: TransformationScope { .afterProcessors }

        func transform(_ event: consuming Event, destination: String?) async -> Event? {
            onCallersExecutor.withLock {
                $0.append(DispatchQueue.getSpecific(key: TransformationRunTests.callerQueueKey) == true)
            }
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
        #expect(after.onCallersExecutor.current.isEmpty)
    }

    /// `transform` is `nonisolated(nonsending)`: run from an actor (the main actor in an
    /// app), a plain `async` conformance stays on it.
    @Test func aTransformationRunsOnTheCallersExecutor() async {
        let adding = Adding(id: "a", key: "k")
        let result = await Caller().run([adding])
        #expect(result?.payload == ["k": "a"])
        #expect(adding.onCallersExecutor.current == [true])
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
