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
        let started = Locked(0)
        let release = DispatchSemaphore(value: 0)
        // This test's own task holds one thread of the pool. Holders take the others: each new
        // one is started when the one before has started, until one does not start within
        // 100 ms. The pool's width is not read from the processor count, which can differ
        // from it (a container's CPU quota).
        var holders: [Task<Void, Never>] = []
        var poolIsFull = false
        while !poolIsFull && holders.count < 256 {
            let before = started.current
            holders.append(
                Task.detached(priority: priority) {
                    started.withLock { $0 += 1 }
                    _ = release.wait(timeout: .now() + 30)
                }
            )
            let deadline = DispatchTime.now() + .milliseconds(100)
            while started.current == before && DispatchTime.now() < deadline {}
            poolIsFull = started.current == before
        }

        let status = Result { () throws -> Int? in
            try connection.blockingSend("GET", [], path: "/events")
            return try connection.blockingReadStatus()
        }
        for _ in holders { release.signal() }
        for holder in holders { await holder.value }

        #expect(poolIsFull)
        #expect(try status.get() == 200)
        await collector.shutdown()
    }
}
#endif
