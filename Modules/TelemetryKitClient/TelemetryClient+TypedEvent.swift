public import TelemetryKitTypedEvents

extension TelemetryClient {
    /// Sends a typed event without waiting; the same event as the untyped
    /// `event(name, parameters:floatValue:)` with the type's name, parameters and float value.
    ///
    /// ```swift
    /// client.event(CheckoutCompleted(items: 3, coupon: nil, total: 19.99))
    /// ```
    @inlinable
    public func event(_ event: some TypedEvent, customUserID: String? = nil) {
        self.event(EventInput(event, customUserID: customUserID))
    }

    /// Sends a typed event and returns once it is in every destination's cache, held in memory
    /// or dropped, as sending its `EventInput` does; the result says which.
    @inlinable
    @discardableResult
    nonisolated(nonsending) public func send(
        _ event: some TypedEvent,
        customUserID: String? = nil
    ) async
        -> SendOutcome
    {
        await send(EventInput(event, customUserID: customUserID))
    }
}
