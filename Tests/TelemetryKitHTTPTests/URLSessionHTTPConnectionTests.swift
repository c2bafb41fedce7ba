#if Tools
import Testing
import TelemetryKit
import TelemetryKitCollector
import TelemetryKitHTTPTestSupport
import TelemetryKitTesting

@testable import TelemetryKitHTTP

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The default connection keeps its `URLSession` off the launch path.
@Suite struct URLSessionHTTPConnectionTests {
    @Test func theSessionIsMadeByTheFirstRequestNotByTheTransmitter() async throws {
        try await withCollector { collector in
            let connection = URLSessionHTTPConnection()
            let transmitter = try HTTPEventTransmitter(
                configuration: .init(apiBaseURL: collector.baseURL, namespace: "test-ns"),
                connection: connection,
                logger: SilentLogger()
            )
            // Building the transmitter (what `Telemetry.initialize` does) made no session.
            #expect(!connection.hasMadeSession)
            #expect(await transmitter.transmit([Fixtures.event(number: 1)]) == .delivered)
            #expect(connection.hasMadeSession)
            // The same session carries the next request.
            #expect(await transmitter.transmit([Fixtures.event(number: 2)]) == .delivered)
            #expect(collector.eventCount == 2)
        }
    }
}
#endif
