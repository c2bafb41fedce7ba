import TelemetryKit
import TelemetryKitSupport
import TelemetryKitTesting
import Testing

struct AsyncTurnTests {
    /// The turn is held across suspensions, and a released turn goes to the callers that
    /// waited, in the order they asked, before a caller that asks later.
    @Test func waitersGetTheTurnInTheOrderTheyAskedAndNoNewcomerCutsIn() async {
        let turn = AsyncTurn()
        let order = Locked<[String]>([])
        await turn.acquire()
        #expect(turn.isHeld)

        var waiters: [Task<Void, Never>] = []
        for (index, name) in ["first", "second", "third"].enumerated() {
            waiters.append(
                Task {
                    await turn.acquire()
                    order.withLock { $0.append(name) }
                    await Task.yield()  // held across a suspension
                    turn.release()
                }
            )
            // Each waits before the next one asks.
            #expect(await conditionHolds { turn.waitingCount == index + 1 })
        }
        turn.release()
        await turn.acquire()  // a newcomer: after the three
        order.withLock { $0.append("newcomer") }
        turn.release()
        for waiter in waiters { await waiter.value }

        #expect(order.current == ["first", "second", "third", "newcomer"])
        #expect(!turn.isHeld)
    }
}
