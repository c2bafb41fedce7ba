#if Tools
import Dispatch
import Foundation
import Testing
import TelemetryKit
import TelemetryKitCollector
import TelemetryKitSupport

/// Where the collector serves its connections.
@Suite struct CollectorServingTests {
    /// The collector answers while every thread of Swift's cooperative pool is held: it serves
    /// connections on a queue of its own (`ServingExecutor`). Served on the pool, a request
    /// waited for a free thread there, and a process of tests running in parallel kept the
    /// pool busy long enough (over 10 s on 2 cores) for clients to time out. Here it would wait
    /// until the read's 10-second timeout, and the test fails.
    @Test func answersWhileEveryThreadOfTheCooperativePoolIsHeld() async throws {
        let collector = try await Collector.start()
        let connection = try RawHTTPConnection(port: collector.port)
        let priority = Task.currentPriority
        let width = ProcessInfo.processInfo.activeProcessorCount
        let holding = Locked(0)
        let release = DispatchSemaphore(value: 0)
        // This test's own task holds one thread; these hold the others, until released.
        let holders = (1..<max(width, 1)).map { _ in
            Task.detached(priority: priority) {
                holding.withLock { $0 += 1 }
                _ = release.wait(timeout: .now() + 30)
            }
        }
        let deadline = DispatchTime.now() + 20
        while holding.current < width - 1 && DispatchTime.now() < deadline {}
        // Proof that the pool is full: a task started now does not run while the threads are held.
        let probeRan = Locked(false)
        let probe = Task.detached(priority: priority) { probeRan.set(true) }
        let probeDeadline = DispatchTime.now() + .milliseconds(50)
        while DispatchTime.now() < probeDeadline {}
        let poolWasFull = !probeRan.current

        let status = Result { () throws -> Int? in
            try connection.blockingSend("GET", [], path: "/events")
            return try connection.blockingReadStatus()
        }
        for _ in holders { release.signal() }
        for holder in holders { await holder.value }
        await probe.value

        #expect(holding.current == width - 1)
        #expect(poolWasFull)
        #expect(try status.get() == 200)
        await collector.shutdown()
    }
}
#endif
