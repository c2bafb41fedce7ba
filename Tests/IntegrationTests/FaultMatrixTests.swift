#if Tools
import Testing
import TelemetryKit
import TelemetryKitCollector
import TelemetryKitHTTP
import TelemetryKitHTTPTestSupport
import TelemetryKitSQLiteCache
import TelemetryKitSupport
import TelemetryKitTesting

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// 10,000 events through a client, its SQLite queue, HTTP and a misbehaving collector: nothing may be lost,
/// duplicates may only come from lost answers, and order must hold.
@Suite struct FaultMatrixTests {
    static let eventCount = 10_000

    @Test(arguments: TestConnection.allCases)
    func everyEventArrivesDespiteFaults(connection: TestConnection) async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        // The durable queue the default destination uses.
        let cache = try SQLiteEventCache(
            fileURL: directory.file("events.sqlite"),
            limit: 20_000,
            logger: SilentLogger()
        )
        // Event ids on the wire (the form for our own receivers), so the collector can tell
        // re-sent events from new ones.
        try await withCollector(wireFormat: .telemetryDeckWithEventIDs) { collector in
            collector.setMaximumBatchSize(40)
            collector.setRandomFaults(
                RandomFaults(
                    seed: 20_240_615,
                    [
                        (.status(500), 0.20),
                        (.status(503, retryAfter: "1"), 0.05),
                        (.closeMidResponse, 0.05),
                    ]
                )
            )
            let transmitter = try makeTransmitter(for: collector, connection: connection) {
                $0.wireFormat = .telemetryDeckWithEventIDs
            }
            let reports = Locked([DeliveryReport]())
            let clock = ManualClock()
            let client = TelemetryClient(
                configuration: .init(appID: "MATRIX-APP"),
                destinations: [
                    Destination(
                        id: "collector",
                        transmitter: transmitter,
                        cache: cache,
                        policy: DeliveryPolicy(
                            flushInterval: 3600,
                            backoff: BackoffPolicy(initial: 0.01, maximum: 0.05, jitter: 0)
                        )
                    )
                ],
                storage: InMemoryProcessorStorage(),
                logger: SilentLogger(),
                clock: clock,
                observer: { report in reports.withLock { $0.append(report) } }
            )
            await client.start()
            for number in 0..<Self.eventCount {
                client.event("Matrix.numbered", parameters: ["number": number])
            }
            await client.waitUntilProcessed()

            var flushes = 0
            while case .incomplete = await client.flush() {
                flushes += 1
                try #require(flushes < 20_000, "the queue never drained")
                // A flush honours the collector's Retry-After, which the client reads on its clock.
                clock.advance(by: 1)
            }

            // Every event arrived, first receptions in the order sent.
            let received = collector.events
            #expect(received.count == Self.eventCount)
            #expect(Set(received.map(\.id)).count == Self.eventCount)
            let numbers = received.map { event -> Int64 in
                if case .int(let number)? = event.payload["number"] { return number }
                return -1
            }
            #expect(numbers == (0..<Int64(Self.eventCount)).map { $0 })

            // Each duplicate is the re-send of a batch whose answer was lost: an id may come
            // again only after a request that recorded it without the client learning so.
            let requests = collector.requests
            var lastRecording = [UUID: IngestRequest]()
            var resentAfterLostAnswer = 0
            for request in requests where request.recorded {
                for id in request.eventIDs {
                    if let previous = lastRecording[id] {
                        #expect(previous.answerLost, "event \(id) re-sent after request \(previous.index) was answered")
                        resentAfterLostAnswer += 1
                    }
                    lastRecording[id] = request
                }
            }
            #expect(collector.duplicateCount == resentAfterLostAnswer)

            // The faults really happened.
            let statuses = requests.map(\.status)
            #expect(statuses.contains(413))
            #expect(statuses.contains(500))
            #expect(statuses.contains(503))
            #expect(requests.contains { $0.answerLost })
            #expect(collector.duplicateCount > 0)
            #expect(requests.allSatisfy { $0.eventIDs.count <= 100 })

            // The client saw the same story, and Retry-After reached the dispatcher.
            let stats = try #require(await client.stats.destinations["collector"])
            #expect(stats.delivered == Self.eventCount)
            #expect(stats.rejected == 0)
            #expect(stats.queued == 0)
            #expect(stats.retried > 0)
            #expect(reports.current.contains { $0.retryDelay == 1 })
            await client.shutdown()
        }
    }
}
#endif
