#if ServiceLifecycle
public import ServiceLifecycle
public import TelemetryKitClient

/// Runs a `TelemetryClient` for as long as a server's `ServiceGroup` runs, and delivers what
/// is queued when the group shuts down.
///
/// A server or command-line tool has no app lifecycle that tells the SDK when to send the
/// last events; its `ServiceGroup` does (SIGTERM, SIGINT, or another service ending). Add
/// this service to the group and the client starts with the server, and on graceful shutdown
/// (or cancellation) it stops its processors and sends what is queued, waiting at most the
/// client's `shutdownTimeout`. Whatever could not be sent stays in the client's durable cache
/// for the next run.
///
/// ```swift
/// let telemetry = TelemetryService(client: client)
/// let group = ServiceGroup(
///     services: [telemetry, httpServer],   // telemetry first: it stops last
///     gracefulShutdownSignals: [.sigterm, .sigint],
///     logger: logger
/// )
/// try await group.run()
/// ```
///
/// `run()` returns after the client has shut down; events sent to the client afterwards are
/// dropped. A `ServiceGroup` shuts its services down in reverse order, so list this service
/// *before* the services that send events: they stop first, and the events they send while
/// stopping are still delivered. (Hummingbird's `Application.addServices(_:)` puts added
/// services before its server, which is the right order.)
public struct TelemetryService: Service {
    /// The client this service starts and shuts down.
    public let client: TelemetryClient

    /// Creates a service for `client`. The client may already be started (by the `Telemetry`
    /// facade, for instance); starting it again does nothing.
    public init(client: TelemetryClient) {
        self.client = client
    }

    /// Starts the client, waits for graceful shutdown or cancellation, then shuts the client
    /// down (processors stop, the queue is flushed within the client's `shutdownTimeout`).
    ///
    /// Never throws: cancellation is a way to end, not a failure, so the group does not
    /// treat the telemetry service as failed.
    public func run() async throws {
        await client.start()
        do {
            try await gracefulShutdown()
        } catch {
            // Cancelled: shut down all the same, so queued events are persisted and sent.
        }
        // A cancelled task would cancel the final delivery's requests; this one is not
        // cancelled (unstructured), and `shutdown()` bounds it with the client's deadline.
        let client = self.client
        await Task { await client.shutdown() }.value
    }
}
#endif
