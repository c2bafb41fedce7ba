import Foundation
import TelemetryKit
import TelemetryKitSupport
import TelemetryKitTesting
import Testing

/// Saving and sending on `.didEnterBackground` inside a platform background task, through an
/// injected provider (UIKit's is a thin shim over the same protocol).
struct BackgroundTaskTests {
    /// Records what the client asks of it; `expire()` plays the system running out of time.
    final class RecordingBackgroundTasks: BackgroundTaskProviding {
        private struct State {
            var begun: [String] = []
            var ended = 0
            var valueAtEnd: [Int] = []
            var expirations: [@Sendable () -> Void] = []
        }

        private let state = Locked(State())
        /// Read when a task ends, e.g. how many events were delivered by then.
        private let observedAtEnd: @Sendable () -> Int
        /// Calls the expiration handler from inside `beginBackgroundTask`, before it returns.
        private let expiresAtOnce: Bool

        init(expiresAtOnce: Bool = false, observedAtEnd: @escaping @Sendable () -> Int = { 0 }) {
            self.expiresAtOnce = expiresAtOnce
            self.observedAtEnd = observedAtEnd
        }

        func beginBackgroundTask(
            named name: String,
            onExpiration: @escaping @Sendable () -> Void
        ) -> @Sendable () -> Void {
            state.withLock { state in
                state.begun.append(name)
                state.expirations.append(onExpiration)
            }
            if expiresAtOnce { onExpiration() }
            return { [state, observedAtEnd] in
                let value = observedAtEnd()
                state.withLock { state in
                    state.ended += 1
                    state.valueAtEnd.append(value)
                }
            }
        }

        func expire() {
            for expiration in state.withLock({ $0.expirations }) { expiration() }
        }

        var begun: [String] { state.withLock { $0.begun } }
        var ended: Int { state.withLock { $0.ended } }
        var valueAtEnd: [Int] { state.withLock { $0.valueAtEnd } }

        func waitUntilEnded() async throws {
            while ended == 0 { try await Task.sleep(for: .milliseconds(1)) }
        }
    }

    /// Delivers, or (while `hangs`) waits until its request is cancelled and asks for a retry,
    /// as an HTTP request cut off by the app's suspension does.
    final class HangingTransmitter: EventTransmitting {
        private struct State {
            var hangs = true
            var waiting = 0
            var returned = 0
            var delivered: [String] = []
        }

        private let state = Locked(State())

        func transmit(_ batch: [Event]) async -> TransmissionOutcome {
            guard state.withLock({ $0.hangs }) else {
                state.withLock { $0.delivered += batch.map(\.type) }
                return .delivered
            }
            state.withLock { $0.waiting += 1 }
            defer { state.withLock { $0.returned += 1 } }
            do {
                try await Task.sleep(for: .seconds(60))
                return .delivered
            } catch {
                return .retry(after: nil)
            }
        }

        func stopHanging() { state.withLock { $0.hangs = false } }
        var waiting: Int { state.withLock { $0.waiting } }
        var returned: Int { state.withLock { $0.returned } }
        var delivered: [String] { state.withLock { $0.delivered } }
    }

    private static func client(
        transmitter: any EventTransmitting,
        cache: InMemoryEventCache,
        backgroundTasks: RecordingBackgroundTasks
    ) async -> TelemetryClient {
        let client = TelemetryClient(
            configuration: .init(appID: "BACKGROUND"),
            destinations: [
                Destination(
                    id: "main",
                    transmitter: transmitter,
                    cache: cache,
                    policy: DeliveryPolicy(flushInterval: 3600)
                )
            ],
            storage: InMemoryProcessorStorage(),
            logger: RecordingLogger()
        )
        client.backgroundTasks = backgroundTasks
        await client.start()
        return client
    }

    @Test(.timeLimit(.minutes(1)))
    func theQueueIsSentInsideABackgroundTaskThatEndsAfterTheSend() async throws {
        let spy = SpyEventTransmitter()
        let tasks = RecordingBackgroundTasks(observedAtEnd: { spy.deliveredEvents.count })
        let client = await Self.client(transmitter: spy, cache: InMemoryEventCache(), backgroundTasks: tasks)
        await client.send("Queued.1")
        await client.send("Queued.2")

        client.lifecycle.send(.didEnterBackground)
        try await tasks.waitUntilEnded()

        #expect(tasks.begun == ["TelemetryKit: save and send"])
        #expect(tasks.ended == 1)
        #expect(tasks.valueAtEnd == [2], "the task ends after both events were delivered")
        #expect(spy.deliveredEvents.map(\.type) == ["Queued.1", "Queued.2"])
        await client.shutdown()
        #expect(tasks.ended == 1)
    }

    @Test(.timeLimit(.minutes(1)))
    func whenTheTimeRunsOutTheSendIsCancelledTheEventsStayAndTheTaskEnds() async throws {
        let transmitter = HangingTransmitter()
        let cache = InMemoryEventCache()
        let tasks = RecordingBackgroundTasks()
        let client = await Self.client(transmitter: transmitter, cache: cache, backgroundTasks: tasks)
        for number in 1...3 { await client.send("Queued.\(number)") }

        client.lifecycle.send(.didEnterBackground)
        while transmitter.waiting == 0 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(tasks.ended == 0, "still sending: the task runs on")
        tasks.expire()

        #expect(tasks.ended == 1, "ended before the expiration handler returned")
        while transmitter.returned == 0 { try await Task.sleep(for: .milliseconds(1)) }
        #expect(await cache.count() == 3)
        let status = try #require(await client.deliveryStatus(of: "main"))
        #expect(status.currentBackoff == nil, "a cancelled send is not the receiver's failure")
        #expect(await client.stats.destinations["main"]?.retried == 0)
        #expect(tasks.ended == 1)

        // Back in the foreground, the next flush delivers them.
        transmitter.stopHanging()
        #expect(await client.flush() == .complete)
        #expect(transmitter.delivered == ["Queued.1", "Queued.2", "Queued.3"])
        await client.shutdown()
    }

    /// The system may run out of time before `beginBackgroundTask` has even returned.
    @Test(.timeLimit(.minutes(1)))
    func anExpirationBeforeTheTaskBeganCancelsTheWorkAndEndsTheTaskOnce() async throws {
        let tasks = RecordingBackgroundTasks(expiresAtOnce: true)
        let sawCancellation = Locked<Bool?>(nil)

        await TelemetryClient.runInBackgroundTask(of: tasks, named: "Work") {
            sawCancellation.set(Task.isCancelled)
        }.value

        #expect(sawCancellation.current == true)
        #expect(tasks.begun == ["Work"])
        #expect(tasks.ended == 1)
    }

    @Test func withoutAProviderTheWorkRunsAsItIs() async {
        let sawCancellation = Locked<Bool?>(nil)
        await TelemetryClient.runInBackgroundTask(of: nil, named: "Work") {
            sawCancellation.set(Task.isCancelled)
        }.value
        #expect(sawCancellation.current == false)
    }

    // MARK: The app's own background task (BGProcessingTask, BGAppRefreshTask)

    /// Delivers every batch but the second, on which it hangs until its request is cancelled.
    final class SecondBatchHangs: EventTransmitting {
        private struct State {
            var batches = 0
            var delivered: [String] = []
            var hanging = false
        }

        private let state = Locked(State())

        func transmit(_ batch: [Event]) async -> TransmissionOutcome {
            let number = state.withLock { state -> Int in
                state.batches += 1
                return state.batches
            }
            if number != 2 {
                state.withLock { $0.delivered += batch.map(\.type) }
                return .delivered
            }
            state.withLock { $0.hanging = true }
            do {
                try await Task.sleep(for: .seconds(60))
                return .delivered
            } catch {
                return .retry(after: nil)
            }
        }

        var hanging: Bool { state.withLock { $0.hanging } }
        var delivered: [String] { state.withLock { $0.delivered } }
    }

    @Test(.timeLimit(.minutes(1)))
    func aFlushInTheAppsBackgroundTaskStopsAtExpiryAndKeepsWhatWasNotSent() async throws {
        let transmitter = SecondBatchHangs()
        let cache = InMemoryEventCache()
        let client = TelemetryClient(
            configuration: .init(appID: "BGTASK"),
            destinations: [
                Destination(
                    id: "main",
                    transmitter: transmitter,
                    cache: cache,
                    policy: DeliveryPolicy(flushInterval: 3600, maxBatchCount: 2)
                )
            ],
            storage: InMemoryProcessorStorage(),
            logger: RecordingLogger()
        )
        await client.start()
        for number in 1...5 { await client.send("Queued.\(number)") }

        // The system's task: it hands out its expiration handler, and later calls it.
        let expirationHandler = Locked<(@Sendable () -> Void)?>(nil)
        let flushing = Task {
            await client.flush(expiration: { handler in expirationHandler.set(handler) })
        }
        while !transmitter.hanging { try await Task.sleep(for: .milliseconds(1)) }
        let expire = try #require(expirationHandler.current)
        expire()  // the time runs out halfway through the second batch

        #expect(await flushing.value == .incomplete(remaining: 3))
        #expect(transmitter.delivered == ["Queued.1", "Queued.2"])
        #expect(try await cache.peek(limit: 10).map(\.type) == ["Queued.3", "Queued.4", "Queued.5"])
        let status = try #require(await client.deliveryStatus(of: "main"))
        #expect(status.currentBackoff == nil, "the expiry is not the receiver's failure")
        await client.shutdown()
    }
}
