import Dispatch
import Foundation
import TelemetryKit
import TelemetryKitSupport
import Testing

/// Checks that blocking work (a slow fsync, a compaction) started from tasks leaves Swift's
/// cooperative pool free.
///
/// It starts more operations than the machine has cores, each from its own task, and each
/// must call the `block` it is given from the blocking part of its work; `block` waits there
/// (up to 60 s) until the check releases it. Once all are blocked, a probe task must run. Were
/// the work done on the tasks' own threads, it would hold every thread of the pool, and the
/// probe could only run after the blocks gave up waiting: the check then fails, not hangs.
/// The wait is long because the whole suite runs in parallel on two cores, where a probe that
/// is free to run still waited 20 s for a thread, and 10 s once made a fresh clone's run fail.
func expectCooperativePoolFree(
    whileBlocking operation:
        @escaping @Sendable (_ index: Int, _ block: @escaping @Sendable () -> Void) async throws ->
        Void,
    sourceLocation: SourceLocation = #_sourceLocation
) async throws {
    let count = ProcessInfo.processInfo.activeProcessorCount + 2
    let release = DispatchSemaphore(value: 0)
    let blocked = Locked(0)
    let gaveUpWaiting = Locked(0)
    let block: @Sendable () -> Void = {
        blocked.withLock { $0 += 1 }
        if release.wait(timeout: .now() + 60) == .timedOut {
            gaveUpWaiting.withLock { $0 += 1 }
        }
    }
    let operations = Task {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask { try await operation(index, block) }
            }
            try await group.waitForAll()
        }
    }
    while blocked.current < count {
        try await Task.sleep(for: .milliseconds(1))
    }

    let probe = await Task.detached { 42 }.value
    let timedOutBeforeTheProbeRan = gaveUpWaiting.current
    for _ in 0..<count { release.signal() }
    try await operations.value

    #expect(probe == 42, sourceLocation: sourceLocation)
    #expect(timedOutBeforeTheProbeRan == 0, "blocked work held the pool", sourceLocation: sourceLocation)
    #expect(gaveUpWaiting.current == 0, sourceLocation: sourceLocation)
}
