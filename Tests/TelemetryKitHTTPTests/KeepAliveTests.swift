#if Tools
import Testing
import TelemetryKit
import TelemetryKitCollector
import TelemetryKitHTTP
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
/// the transmitter a 40 s timeout, so that stall would turn the second outcome into a retry
/// and make the test take over 40 s.
@Suite struct KeepAliveTests {
    private let batch = [Fixtures.event(number: 1), Fixtures.event(number: 2, sessionID: nil, floatValue: nil)]

    /// The server's close: when the connection is reused (the race a keep-alive timeout
    /// loses), or after 10 ms idle (the client can see the close before it reuses).
    static let closes: [Fault] = [.closeWhenReused, .closeWhenIdle(after: 0.01)]

    @Test(arguments: closes, [0.05, 0.3])
    func theNextRequestAfterTheServerClosedTheConnectionIsDelivered(close: Fault, gap: Double) async throws {
        try await withCollector { collector in
            collector.script([close])
            let transmitter = try makeTransmitter(for: collector) { $0.timeout = 40 }
            #expect(await transmitter.transmit(batch) == .delivered)
            try await Task.sleep(nanoseconds: UInt64(gap * 1_000_000_000))
            #expect(await transmitter.transmit(batch) == .delivered)
            // Both requests arrived whole, each on its own connection; nothing was lost.
            #expect(collector.requests.map(\.status) == [200, 200])
            #expect(collector.requests.map(\.fault) == [close, nil])
            #expect(collector.requests.map(\.connection) == [0, 1])
            #expect(collector.eventCount == 4)
        }
    }

    @Test func aBurstOfRequestsAfterAClosedConnectionAllArrive() async throws {
        try await withCollector { collector in
            collector.script([.closeWhenReused, .closeWhenReused, .closeWhenReused])
            let transmitter = try makeTransmitter(for: collector) { $0.timeout = 40 }
            var outcomes: [TransmissionOutcome] = []
            for _ in 0..<6 { outcomes.append(await transmitter.transmit(batch)) }
            #expect(outcomes == Array(repeating: .delivered, count: 6))
            #expect(collector.requests.map(\.status) == Array(repeating: 200, count: 6))
            #expect(collector.eventCount == 12)
        }
    }
}
#endif
