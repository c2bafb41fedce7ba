import TelemetryKit
import TelemetryKitSupport
import Testing

struct SerialTaskQueueTests {
    /// Work that can wait runs at the priority it was given, and still after the work queued
    /// before it. (Read through a stream: awaiting the task would raise its priority.)
    @Test func anOperationRunsAtItsPriorityInTurn() async {
        let queue = SerialTaskQueue()
        let (reports, report) = AsyncStream.makeStream(of: (name: String, priority: TaskPriority).self)
        queue.enqueue(priority: .high) {
            try? await Task.sleep(nanoseconds: 20_000_000)
            report.yield(("first", Task.currentPriority))
        }
        queue.enqueue(priority: .utility) {
            report.yield(("second", Task.currentPriority))
            report.finish()
        }
        var seen: [(name: String, priority: TaskPriority)] = []
        for await entry in reports { seen.append(entry) }

        #expect(seen.map(\.name) == ["first", "second"])
        #expect(seen.map(\.priority) == [.high, .utility])
    }
}
