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

/// A server closing a kept-alive connection must not stall the next request.
///
/// With FoundationNetworking reusing connections, a request that found its connection
/// closed was re-sent without its body and hung until the request timeout; these tests give
/// the transmitter a 40 s timeout, so that stall would turn an outcome into a retry and make
/// the test take over 40 s.
@Suite struct KeepAliveTests {
    private let batch = [Fixtures.event(number: 1), Fixtures.event(number: 2, sessionID: nil, floatValue: nil)]

    /// The server's close — when the connection is reused (the race a keep-alive timeout
    /// loses), or after 10 ms idle (the client can see the close before it reuses) — and the
    /// client's pause before its next request.
    static let closesAndGaps: [(close: Fault, gap: Double)] = [
        (.closeWhenReused, 0.05), (.closeWhenReused, 0.3), (.closeWhenIdle(after: 0.01), 0.05),
        (.closeWhenIdle(after: 0.01), 0.3),
    ]

    @Test(arguments: TestConnection.allCases, closesAndGaps)
    func theNextRequestAfterTheServerClosedTheConnectionArrives(
        connection: TestConnection,
        scenario: (close: Fault, gap: Double)
    ) async throws {
        try await withCollector { collector in
            collector.script([scenario.close])
            let transmitter = try makeTransmitter(for: collector, connection: connection) { $0.timeout = 40 }
            #expect(await transmitter.transmit(batch) == .delivered)
            try await Task.sleep(nanoseconds: UInt64(scenario.gap * 1_000_000_000))
            let second = await transmitter.transmit(batch)
            if scenario.close == .closeWhenReused && connection.requestRacingACloseFails {
                // Sent on the connection as the server closed it: a failure at once, no stall,
                // and the batch goes out again on a new connection.
                #expect(second == .retry(after: nil))
                #expect(await transmitter.transmit(batch) == .delivered)
            } else {
                #expect(second == .delivered)
            }
            // Both batches arrived whole, the second on a new connection; nothing was lost.
            #expect(collector.requests.map(\.status) == [200, 200])
            #expect(collector.requests.map(\.fault) == [scenario.close, nil])
            #expect(collector.requests.map(\.connection) == [0, 1])
            #expect(collector.eventCount == 4)
        }
    }

    @Test(arguments: TestConnection.allCases)
    func aBurstOfBatchesThroughClosingConnectionsAllArrive(connection: TestConnection) async throws {
        try await withCollector { collector in
            collector.script([.closeWhenReused, .closeWhenReused, .closeWhenReused])
            let transmitter = try makeTransmitter(for: collector, connection: connection) { $0.timeout = 40 }
            var delivered = 0
            var retries = 0
            var attempts = 0
            while delivered < 6 && attempts < 12 {
                attempts += 1
                switch await transmitter.transmit(batch) {
                case .delivered: delivered += 1
                case .retry(after: nil): retries += 1
                case let other: Issue.record("unexpected outcome \(other)")
                }
            }
            #expect(delivered == 6)
            #expect(retries == (connection.requestRacingACloseFails ? 3 : 0))
            #expect(collector.requests.map(\.status) == Array(repeating: 200, count: 6))
            #expect(collector.eventCount == 12)
        }
    }
}
#endif
