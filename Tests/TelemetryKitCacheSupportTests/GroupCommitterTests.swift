import Dispatch
import Foundation
import TelemetryKit
import TelemetryKitCacheSupport
import TelemetryKitSupport
import Testing

struct GroupCommitterTests {
    struct CommitError: Error, Equatable {}

    @Test func commitsEveryItemOnceKeepingEachCallersOrder() async throws {
        let committed = Locked<[Int]>([])
        let committer = GroupCommitter<Int> { items in committed.withLock { $0 += items } }
        await withTaskGroup(of: Void.self) { group in
            for caller in 0..<50 {
                group.addTask {
                    for chunk in 0..<4 {
                        let base = caller * 100 + chunk * 10
                        try? await committer.submit([base, base + 1, base + 2])
                    }
                }
            }
        }
        let result = committed.current
        #expect(result.count == 600)
        #expect(Set(result).count == 600)
        for caller in 0..<50 {
            let mine = result.filter { $0 / 100 == caller }
            #expect(mine == mine.sorted())
            // A submission's items are committed together, adjacent.
            for chunk in 0..<4 {
                let base = caller * 100 + chunk * 10
                let start = try #require(result.firstIndex(of: base))
                #expect(Array(result[start..<(start + 3)]) == [base, base + 1, base + 2])
            }
        }
        #expect(committer.queuedSubmissions == 0)
    }

    @Test func aFailedCommitFailsItsWaitersAndLaterCommitsWork() async throws {
        let committed = Locked<[Int]>([])
        let committer = GroupCommitter<Int> { items in
            if items.contains(-1) { throw CommitError() }
            committed.withLock { $0 += items }
        }
        await #expect(throws: CommitError.self) {
            try await committer.submit([1, -1])
        }
        try await committer.submit([2, 3])
        #expect(committed.current == [2, 3])
    }

    @Test func submissionsQueuedDuringACommitShareTheNextOne() async throws {
        let rounds = Locked<[[Int]]>([])
        let committerBox = Locked<GroupCommitter<Int>?>(nil)
        let committer = GroupCommitter<Int> { items in
            rounds.withLock { $0.append(items) }
            guard items == [0] else { return }
            // Hold the first commit until five more submissions are queued behind it.
            let deadline = Date().addingTimeInterval(30)
            while (committerBox.current?.queuedSubmissions ?? 0) < 5, Date() < deadline {
                usleep(200)
            }
        }
        committerBox.set(committer)

        async let first: Void = committer.submit([0])
        while rounds.current.isEmpty { await Task.yield() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            for value in 1...5 {
                group.addTask { try await committer.submit([value]) }
            }
            try await group.waitForAll()
        }
        try await first

        let result = rounds.current
        #expect(result.count == 2)
        #expect(result.first == [0])
        #expect(result.last?.sorted() == [1, 2, 3, 4, 5])
    }

    /// More committers than the machine has cores, every one blocked in its commit (as in a
    /// slow fsync): on their queues they leave the cooperative pool free.
    @Test func blockedCommitsLeaveTheCooperativePoolFree() async throws {
        try await expectCooperativePoolFree { index, block in
            let committer = GroupCommitter<Int>(queue: DispatchQueue(label: "blocked-\(index)")) { _ in block() }
            try await committer.submit([index])
        }
    }
}
