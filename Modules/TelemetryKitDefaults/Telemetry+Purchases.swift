// Purchases from StoreKit transactions: Apple platforms only. Elsewhere this file compiles to
// nothing; `purchaseCompleted(productID:price:…)` sends the same event on every platform.
#if canImport(StoreKit)
public import StoreKit
import Foundation

@available(iOS 15, macOS 12, tvOS 15, visionOS 1, watchOS 8, *)
extension EventInput {
    /// `TelemetryDeck.Purchase.completed` for a StoreKit transaction (price converted to USD).
    public static func purchaseCompleted(
        transaction: StoreKit.Transaction,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) -> EventInput {
        .purchaseCompleted(
            productID: transaction.productID,
            price: transaction.price.map { NSDecimalNumber(decimal: $0).doubleValue } ?? 0,
            currencyCode: transaction.currency?.identifier ?? "USD",
            countryCode: transaction.storefrontCountryCode,
            isSubscription: transaction.subscriptionGroupID != nil,
            parameters: parameters,
            customUserID: customUserID
        )
    }
}

@available(iOS 15, macOS 12, tvOS 15, visionOS 1, watchOS 8, *)
extension Telemetry {
    /// Sends `TelemetryDeck.Purchase.completed` for a StoreKit transaction.
    public static func purchaseCompleted(
        transaction: StoreKit.Transaction,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) async {
        await send(.purchaseCompleted(transaction: transaction, parameters: parameters, customUserID: customUserID))
    }

    @available(*, deprecated, message: "Use the async form with EventParameters")
    public static func purchaseCompleted(
        transaction: StoreKit.Transaction,
        parameters: [String: String] = [:],
        customUserID: String? = nil
    ) {
        signal(
            .purchaseCompleted(
                transaction: transaction,
                parameters: EventParameters(parameters),
                customUserID: customUserID
            )
        )
    }
}
#endif
