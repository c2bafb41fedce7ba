import TelemetryKit
public import TelemetryKitTypedEvents

extension AnalyticsClient {
    /// Sends a typed event: the same as `send(.typedEvent(event))`, for call sites that hold a
    /// plain value.
    ///
    /// ```swift
    /// analyticsClient.send(CheckoutCompleted(items: 3, coupon: nil, total: 19.99))
    /// ```
    public func send(_ event: some TypedEvent) {
        sendAnalytics(.typedEvent(event))
    }
}
