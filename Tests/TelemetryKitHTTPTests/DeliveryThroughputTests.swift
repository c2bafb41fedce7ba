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

/// Measures 10,000 queued events delivered to the loopback collector and prints the figure
/// (the benchmark target is ≤ 1 s). Only the outcome is asserted, never the time.
@Suite struct DeliveryThroughputTests {
    @Test(arguments: TestConnection.allCases, [HTTPEventTransmitter.Compression.none, .gzip])
    func tenThousandQueuedEventsReachTheCollector(
        connection: TestConnection,
        compression: HTTPEventTransmitter.Compression
    ) async throws {
        try await withCollector { collector in
            let transmitter = try makeTransmitter(for: collector, connection: connection) {
                $0.compression = compression
            }
            let cache = InMemoryEventCache(cacheLimit: 20_000)
            let events = (0..<10_000).map { Fixtures.event(number: $0, payload: Fixtures.defaultProcessorsPayload) }
            cache.appendNow(events)
            let client = TelemetryClient(
                configuration: .init(appID: "APP-ID"),
                destinations: [
                    Destination(
                        id: "collector",
                        transmitter: transmitter,
                        cache: cache,
                        policy: DeliveryPolicy(flushInterval: 3600)
                    )
                ],
                storage: InMemoryProcessorStorage(),
                logger: SilentLogger(),
                clock: ManualClock()
            )
            await client.start()
            let start = ContinuousClock.now
            let result = await client.flush()
            let elapsed = ContinuousClock.now - start
            #expect(result == .complete)
            #expect(collector.eventCount == 10_000)
            #expect(collector.requests.count == 100)
            let wire = collector.requests.reduce(0) { $0 + $1.rawBodyByteCount }
            print(
                "10,000 queued events delivered to the loopback collector (\(connection), \(compression)): "
                    + "\(elapsed), \(wire / 10_000) bytes/event on the wire"
            )
            await client.shutdown()
        }
    }
}
#endif
