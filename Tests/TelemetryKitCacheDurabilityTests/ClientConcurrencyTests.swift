import Foundation
import TelemetryKit
import TelemetryKitTesting
import Testing

/// Many tasks sending through one client into a durable cache while the dispatcher sends
/// from it: intake, group commit, peek and remove all run at once. The two caches run at
/// the same time, each committing on its own queue.
struct ClientConcurrencyTests {
    static let tasks = 100
    static let eventsPerTask = 1_000
    static let taskKey = "task"
    static let sequenceKey = "sequence"

    /// Even tasks use `event(...)` (returns at once), odd ones `await send(...)` (returns once
    /// cached), so both intake paths race. The dispatcher sends every 2,000 queued events in
    /// batches of 500 while appends go on; `flush()` sends the rest.
    @Test(arguments: DurableCacheKind.allCases)
    func everyEventOfAHundredTasksArrivesOnceInItsTasksOrder(_ kind: DurableCacheKind) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let logger = RecordingLogger()
        let cache = try kind.open(directory.file(kind.fileName), logger: logger)
        let spy = SpyEventTransmitter()
        let policy = DeliveryPolicy(flushInterval: 3600, maxBatchCount: 500, sendThreshold: 2_000)
        let client = TelemetryClient(
            configuration: TelemetryClient.Configuration(appID: "CONCURRENCY"),
            destinations: [Destination(id: "main", transmitter: spy, cache: cache, policy: policy)],
            storage: InMemoryProcessorStorage(),
            logger: logger
        )
        await client.start()

        await withTaskGroup(of: Void.self) { group in
            for task in 0..<Self.tasks {
                group.addTask {
                    for sequence in 0..<Self.eventsPerTask {
                        let parameters: EventParameters = [Self.taskKey: task, Self.sequenceKey: sequence]
                        if task.isMultiple(of: 2) {
                            client.event("Concurrency.event", parameters: parameters)
                        } else {
                            await client.send("Concurrency.event", parameters: parameters)
                        }
                    }
                }
            }
        }
        let result = await client.flush()
        let stats = await client.stats.destinations["main"]
        await client.shutdown()

        let total = Self.tasks * Self.eventsPerTask
        #expect(result == .complete)
        let delivered = spy.deliveredEvents
        #expect(delivered.count == total)
        #expect(Set(delivered.map(\.id)).count == total, "no event was delivered twice")
        var sequencesByTask = [[Int]](repeating: [], count: Self.tasks)
        for event in delivered {
            guard case .int(let task) = event.payload[Self.taskKey],
                case .int(let sequence) = event.payload[Self.sequenceKey],
                sequencesByTask.indices.contains(Int(task))
            else {
                Issue.record("an event without a task and sequence number: \(event.payload)")
                continue
            }
            sequencesByTask[Int(task)].append(Int(sequence))
        }
        for (task, sequences) in sequencesByTask.enumerated() where sequences != Array(0..<Self.eventsPerTask) {
            Issue.record("task \(task): \(sequences.count) events, first out of order at \(firstMisorder(sequences))")
        }
        #expect(stats?.accepted == total)
        #expect(stats?.delivered == total)
        #expect(stats?.cacheFailures == 0)
        #expect(await cache.count() == 0)
        #expect(await cache.evictedCount() == 0)
        #expect(logger.warnings == [])
    }

    private func firstMisorder(_ sequences: [Int]) -> String {
        guard let first = sequences.enumerated().first(where: { $0.offset != $0.element }) else {
            return "the end (events missing)"
        }
        return "position \(first.offset) (sequence \(first.element))"
    }
}
