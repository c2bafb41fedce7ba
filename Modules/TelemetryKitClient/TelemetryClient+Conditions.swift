import TelemetryKitSupport

extension TelemetryClient {
    /// Sends according to the network and power conditions `source` reports, until shutdown
    /// (replacing a source followed before).
    ///
    /// While the source says offline, no destination attempts a send and the backoff does not
    /// grow; when the network comes back, what waits is sent at once. Expensive and
    /// constrained paths and Low Power Mode follow each destination's ``DeliveryPolicy``.
    /// `Telemetry.initialize` follows the system's conditions on Apple platforms; without a
    /// source the client sends as if ``DeliveryConditions/unrestricted``.
    ///
    /// ```swift
    /// client.follow(MyReachabilitySource())
    /// ```
    public func follow(_ source: any DeliveryConditionsSource) {
        let follower = Task { [weak self] in
            for await conditions in source.conditions() {
                guard let self else { return }
                await self.setDeliveryConditions(conditions)
            }
        }
        let previous = runtime.withLock { state -> Task<Void, Never>? in
            defer { state.conditionsFollower = follower }
            return state.conditionsFollower
        }
        previous?.cancel()
    }

    /// Applies `conditions` to every destination now; returns once they are in effect.
    ///
    /// For a source of your own that is not a stream, or a test that must know the
    /// conditions apply before it goes on. ``follow(_:)`` calls it for each report.
    public func setDeliveryConditions(_ conditions: DeliveryConditions) async {
        for dispatcher in dispatchers {
            await dispatcher.update(conditions: conditions)
        }
    }
}
