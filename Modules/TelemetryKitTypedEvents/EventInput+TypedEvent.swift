public import TelemetryKit

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension EventInput {
    /// The input of a typed event: its name, parameters and float value, exactly as the
    /// equivalent untyped `EventInput(name, parameters:floatValue:)`.
    ///
    /// ```swift
    /// let input = EventInput(CheckoutCompleted(items: 3, coupon: nil, total: 19.99))
    /// ```
    @inlinable
    public init(
        _ event: some TypedEvent,
        customUserID: String? = nil,
        timestamp: Date = Date()
    ) {
        self.init(
            event.eventName,
            parameters: event.parameters,
            floatValue: event.floatValue,
            customUserID: customUserID,
            timestamp: timestamp
        )
    }
}
