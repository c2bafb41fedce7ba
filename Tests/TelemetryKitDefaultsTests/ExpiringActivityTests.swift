import Foundation
import Synchronization
import TelemetryKitDefaults
import TelemetryKitTesting
import Testing

/// Running time for app extensions and watchOS (`ExpiringActivityBackgroundTasks`), with a
/// stand-in for `ProcessInfo.performExpiringActivity` that calls the block on a thread of its
/// own as the system does: the activity lasts while the block runs.
struct ExpiringActivityTests {
    final class Counter: Sendable {
        private let count = Mutex(0)
        func increment() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    /// Plays the system: runs each activity's block on its own thread, records when the block
    /// returned (the activity ended), and can run the time out.
    final class SystemStandIn: Sendable {
        private struct State {
            var reasons: [String] = []
            var blocks: [@Sendable (Bool) -> Void] = []
            var returned = 0
        }

        private let state = Mutex(State())
        /// Calls the block with `expired == true` at once, as when no time can be had.
        private let refuses: Bool

        init(refuses: Bool = false) {
            self.refuses = refuses
        }

        var perform: ExpiringActivityBackgroundTasks.Performer {
            { reason, block in
                self.state.withLock { state in
                    state.reasons.append(reason)
                    state.blocks.append(block)
                }
                let refuses = self.refuses
                Thread.detachNewThread {
                    block(refuses)
                    self.state.withLock { $0.returned += 1 }
                }
            }
        }

        /// The time runs out: the system calls the block again with `true`.
        func expire() {
            for block in state.withLock({ $0.blocks }) { block(true) }
        }

        var reasons: [String] { state.withLock { $0.reasons } }
        var returned: Int { state.withLock { $0.returned } }
    }

    @Test(.timeLimit(.minutes(1)))
    func theActivityLastsUntilTheSaveAndSendAreDone() async throws {
        let system = SystemStandIn()
        let spy = SpyEventTransmitter()
        let client = TelemetryClient(
            configuration: .init(appID: "EXTENSION"),
            destinations: [
                Destination(id: "main", transmitter: spy, policy: DeliveryPolicy(flushInterval: 3600))
            ],
            storage: InMemoryProcessorStorage(),
            logger: RecordingLogger()
        )
        client.backgroundTasks = ExpiringActivityBackgroundTasks(perform: system.perform)
        await client.start()
        await client.send("Widget.tapped")

        client.lifecycle.send(.didEnterBackground)
        #expect(await conditionHolds { system.returned == 1 })
        #expect(system.reasons == ["TelemetryKit: save and send"])
        #expect(spy.deliveredEvents.map(\.type) == ["Widget.tapped"], "sent before the activity ended")
        await client.shutdown()
    }

    @Test(.timeLimit(.minutes(1)))
    func anExpiryTellsTheWorkOnceAndEndsTheActivity() async throws {
        let system = SystemStandIn()
        let tasks = ExpiringActivityBackgroundTasks(perform: system.perform)
        let expirations = Counter()
        let end = tasks.beginBackgroundTask(named: "Work") {
            expirations.increment()
        }
        // The block waits while the work runs.
        try await Task.sleep(for: .milliseconds(50))
        #expect(system.returned == 0)

        system.expire()
        #expect(await conditionHolds { system.returned == 1 }, "the waiting block returned")
        #expect(expirations.value == 1)

        end()  // the work ends later: nothing more happens
        system.expire()
        #expect(expirations.value == 1)
    }

    @Test(.timeLimit(.minutes(1)))
    func noTimeAtAllCancelsTheWorkAtOnce() async throws {
        let system = SystemStandIn(refuses: true)
        let tasks = ExpiringActivityBackgroundTasks(perform: system.perform)
        let expirations = Counter()
        let end = tasks.beginBackgroundTask(named: "Work") {
            expirations.increment()
        }
        #expect(await conditionHolds { system.returned == 1 })
        #expect(expirations.value == 1)
        end()
        #expect(expirations.value == 1)
    }

    @Test(.timeLimit(.minutes(1)))
    func aFinishedWorkEndsTheActivityWithoutAnExpiry() async throws {
        let system = SystemStandIn()
        let tasks = ExpiringActivityBackgroundTasks(perform: system.perform)
        let expirations = Counter()
        let end = tasks.beginBackgroundTask(named: "Work") {
            expirations.increment()
        }
        end()
        #expect(await conditionHolds { system.returned == 1 })
        #expect(expirations.value == 0)
    }
}
