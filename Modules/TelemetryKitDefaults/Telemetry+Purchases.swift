// Purchases from StoreKit transactions: Apple platforms only. Elsewhere this file compiles to
// nothing; `purchaseCompleted(productID:price:…)` (core) sends the same event on every platform.
#if canImport(StoreKit)
public import StoreKit
import Foundation

extension TelemetryPresets {
    /// `TelemetryDeck.Purchase.completed` for a verified StoreKit transaction: product id,
    /// type (subscription when the product belongs to a subscription group), storefront
    /// country, currency and offer id; the price in the transaction's currency is the
    /// `floatValue` (no conversion to USD).
    public static func purchaseCompleted(
        transaction: StoreKit.Transaction,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) -> EventInput {
        purchaseCompleted(
            productID: transaction.productID,
            price: transaction.price.map { NSDecimalNumber(decimal: $0).doubleValue } ?? 0,
            currencyCode: transaction.currency?.identifier,
            countryCode: transaction.storefrontCountryCode,
            isSubscription: transaction.subscriptionGroupID != nil,
            offerID: transaction.offerID,
            parameters: parameters,
            customUserID: customUserID
        )
    }
}

extension TelemetryClient {
    /// Sends `TelemetryDeck.Purchase.completed` for a verified StoreKit transaction.
    public func purchaseCompleted(
        transaction: StoreKit.Transaction,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) {
        event(
            TelemetryPresets.purchaseCompleted(
                transaction: transaction,
                parameters: parameters,
                customUserID: customUserID
            )
        )
    }
}

extension Telemetry {
    /// Sends `TelemetryDeck.Purchase.completed` for a verified StoreKit transaction.
    ///
    /// ```swift
    /// if case .verified(let transaction) = result { Telemetry.purchaseCompleted(transaction: transaction) }
    /// ```
    public static func purchaseCompleted(
        transaction: StoreKit.Transaction,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) {
        signal(
            TelemetryPresets.purchaseCompleted(
                transaction: transaction,
                parameters: parameters,
                customUserID: customUserID
            )
        )
    }
}
#endif
