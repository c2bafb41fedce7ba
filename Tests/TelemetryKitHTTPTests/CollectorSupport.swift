#if Tools
import TelemetryKit
import TelemetryKitCollector
import TelemetryKitHTTP
import TelemetryKitTesting

/// Runs `body` with a fresh collector on an ephemeral loopback port, then shuts it down.
func withCollector<Result>(
    wireFormat: Collector.WireFormat = .telemetryDeck,
    _ body: (Collector) async throws -> Result
) async throws -> Result {
    let collector = try await Collector.start(Collector.Configuration(wireFormat: wireFormat))
    do {
        let result = try await body(collector)
        await collector.shutdown()
        return result
    } catch {
        await collector.shutdown()
        throw error
    }
}

/// A transmitter posting to `collector` with namespace `test-ns`.
func makeTransmitter(
    for collector: Collector,
    path: String = "",
    clock: any TelemetryClock = SystemClock(),
    logger: any Logging = SilentLogger(),
    configure: (inout HTTPEventTransmitter.Configuration) -> Void = { _ in }
) throws -> HTTPEventTransmitter {
    var configuration = HTTPEventTransmitter.Configuration(apiBaseURL: collector.baseURL + path, namespace: "test-ns")
    configure(&configuration)
    return try HTTPEventTransmitter(configuration: configuration, logger: logger, clock: clock)
}
#endif
