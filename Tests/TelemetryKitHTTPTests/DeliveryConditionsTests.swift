#if Tools
import Testing
import TelemetryKit
import TelemetryKitCollector
import TelemetryKitHTTP
import TelemetryKitHTTPTestSupport
import TelemetryKitTesting

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Network- and power-aware delivery against the loopback collector: offline makes no
/// attempt and grows no backoff, the network's return sends at once, Low Data Mode and
/// expensive paths follow the policy, Low Power Mode stretches the interval.
@Suite struct DeliveryConditionsTests {
    private static let destinationID = "collector"

    /// A started client sending to `collector` through HTTP, with a manual clock.
    private func makeClient(
        for collector: Collector,
        policy: DeliveryPolicy = DeliveryPolicy(flushInterval: 10, backoff: BackoffPolicy(jitter: 0)),
        clock: ManualClock
    ) async throws -> TelemetryClient {
        let client = TelemetryClient(
            configuration: .init(appID: "APP-ID"),
            destinations: [
                Destination(
                    id: Self.destinationID,
                    transmitter: try makeTransmitter(for: collector),
                    cache: InMemoryEventCache(),
                    policy: policy
                )
            ],
            storage: InMemoryProcessorStorage(),
            logger: SilentLogger(),
            clock: clock
        )
        await client.start()
        return client
    }

    private func send(_ count: Int, to client: TelemetryClient) async {
        for number in 0..<count {
            _ = await client.send(EventInput("Screen.shown", parameters: ["number": number]))
        }
    }

    @Test func offlineAttemptsNothingAndTheNetworksReturnSendsAtOnce() async throws {
        try await withCollector { collector in
            let clock = ManualClock()
            let client = try await makeClient(for: collector, clock: clock)
            await client.setDeliveryConditions(.offline)
            await send(3, to: client)

            #expect(await client.flush() == .incomplete(remaining: 3))
            // Several send intervals pass: still no request, and no backoff grew.
            for _ in 0..<3 {
                await clock.waitForSleepers(1)
                clock.advance(by: 11)
            }
            #expect(collector.requests.isEmpty)
            let waiting = try #require(await client.deliveryStatus(of: Self.destinationID))
            #expect(waiting.queued == 3)
            #expect(waiting.currentBackoff == nil)
            #expect(waiting.conditions == .offline)
            #expect(await client.stats.destinations[Self.destinationID]?.retried == 0)

            // Back online: sent without waiting for the timer (the manual clock stands still).
            await client.setDeliveryConditions(.unrestricted)
            #expect(await conditionHolds(within: 5) { collector.eventCount == 3 })
            // Removed once the answer is back.
            #expect(
                await conditionHolds(within: 5) { await client.deliveryStatus(of: Self.destinationID)?.queued == 0 }
            )
            await client.shutdown()
        }
    }

    @Test func theBackoffOfFailuresBeforeGoingOfflineIsForgottenOnReturn() async throws {
        try await withCollector { collector in
            let clock = ManualClock()
            let client = try await makeClient(for: collector, clock: clock)
            collector.script([.status(503), .status(503)])
            await send(2, to: client)
            _ = await client.flush()
            _ = await client.flush()
            #expect(await client.deliveryStatus(of: Self.destinationID)?.currentBackoff == 20)

            await client.setDeliveryConditions(.offline)
            await client.setDeliveryConditions(.unrestricted)
            #expect(await conditionHolds(within: 5) { collector.eventCount == 2 })
            #expect(
                await conditionHolds(within: 5) { await client.deliveryStatus(of: Self.destinationID)?.queued == 0 }
            )
            #expect(await client.deliveryStatus(of: Self.destinationID)?.currentBackoff == nil)
            await client.shutdown()
        }
    }

    @Test func aFollowedSourceDrivesDelivery() async throws {
        try await withCollector { collector in
            let clock = ManualClock()
            let client = try await makeClient(for: collector, clock: clock)
            let (stream, continuation) = AsyncStream.makeStream(of: DeliveryConditions.self)
            client.follow(StreamSource(stream: stream))

            continuation.yield(.offline)
            #expect(
                await conditionHolds(within: 5) {
                    await client.deliveryStatus(of: Self.destinationID)?.conditions == .offline
                }
            )
            await send(2, to: client)
            #expect(await client.flush() == .incomplete(remaining: 2))
            #expect(collector.requests.isEmpty)

            continuation.yield(.unrestricted)
            #expect(await conditionHolds(within: 5) { collector.eventCount == 2 })
            await client.shutdown()
            continuation.finish()
        }
    }

    @Test func lowDataModeSendsOnlyOnFlushOrNearTheLimit() async throws {
        try await withCollector { collector in
            let clock = ManualClock()
            let policy = DeliveryPolicy(flushInterval: 10, deferredSendThreshold: 5)
            let client = try await makeClient(for: collector, policy: policy, clock: clock)
            await client.setDeliveryConditions(DeliveryConditions(isConstrained: true))

            // The timer's rounds hold back a small queue.
            await send(3, to: client)
            await clock.waitForSleepers(1)
            clock.advance(by: 11)
            await clock.waitForSleepers(1)
            #expect(collector.requests.isEmpty)

            // An explicit flush sends it.
            #expect(await client.flush() == .complete)
            #expect(collector.eventCount == 3)

            // A queue at the threshold goes with the next tick.
            await send(5, to: client)
            clock.advance(by: 11)
            #expect(await conditionHolds(within: 5) { collector.eventCount == 8 })
            await client.shutdown()
        }
    }

    @Test func anExpensivePathTheAppRefusesWaitsEvenOnFlush() async throws {
        try await withCollector { collector in
            let clock = ManualClock()
            let policy = DeliveryPolicy(flushInterval: 10, onExpensiveNetwork: .never)
            let client = try await makeClient(for: collector, policy: policy, clock: clock)
            await client.setDeliveryConditions(DeliveryConditions(isExpensive: true))
            await send(2, to: client)

            #expect(await client.flush() == .incomplete(remaining: 2))
            #expect(collector.requests.isEmpty)

            // Wi-Fi: the queue goes at once.
            await client.setDeliveryConditions(.unrestricted)
            #expect(await conditionHolds(within: 5) { collector.eventCount == 2 })
            await client.shutdown()
        }
    }

    @Test func cellularIsUsedByDefault() async throws {
        try await withCollector { collector in
            let client = try await makeClient(for: collector, clock: ManualClock())
            await client.setDeliveryConditions(DeliveryConditions(isExpensive: true))
            await send(2, to: client)
            #expect(await client.flush() == .complete)
            #expect(collector.eventCount == 2)
            await client.shutdown()
        }
    }

    @Test func lowPowerModeLengthensTheInterval() async throws {
        try await withCollector { collector in
            let clock = ManualClock()
            let policy = DeliveryPolicy(flushInterval: 10, lowPowerFlushInterval: 60)
            let client = try await makeClient(for: collector, policy: policy, clock: clock)
            await client.setDeliveryConditions(DeliveryConditions(isLowPowerModeEnabled: true))
            await send(2, to: client)

            await clock.waitForSleepers(1)
            #expect(clock.sleepHistory.last == 60)
            clock.advance(by: 30)
            await clock.waitForSleepers(1)
            #expect(collector.requests.isEmpty)

            clock.advance(by: 31)
            #expect(await conditionHolds(within: 5) { collector.eventCount == 2 })
            await client.shutdown()
        }
    }
}

/// A source that reports what a test yields.
private struct StreamSource: DeliveryConditionsSource {
    let stream: AsyncStream<DeliveryConditions>
    func conditions() -> AsyncStream<DeliveryConditions> { stream }
}
#endif
