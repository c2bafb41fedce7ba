public import TelemetryKit

/// Purchases: `TelemetryDeck.Purchase.completed` and `.freeTrialStarted`, on every platform.
///
/// The `floatValue` of a completed purchase is its price in US dollars, as TelemetryDeck's
/// revenue dashboards expect, converted with ``PurchaseCurrency/approximateUSDRates`` unless
/// you pass your own rates. On Apple platforms `purchaseCompleted(transaction:)` reads the
/// same facts from a StoreKit transaction.
///
/// ```swift
/// client.event(.purchaseCompleted(productID: "pro.yearly", price: 49.99, currencyCode: "EUR",
///                                 countryCode: "DE", isSubscription: true))
/// ```
extension EventInput {
    /// `TelemetryDeck.Purchase.completed` with the price in US dollars as `floatValue`.
    ///
    /// - Parameters:
    ///   - productID: the purchased product's identifier (`TelemetryDeck.Purchase.productID`).
    ///   - price: the price in `currencyCode`.
    ///   - currencyCode: ISO 4217 code; a code without a known rate is sent unconverted (as
    ///     TelemetryDeck v3 does) and keeps its code in the payload.
    ///   - countryCode: the storefront's country, when known (`TelemetryDeck.Purchase.countryCode`).
    ///   - isSubscription: a subscription or a one-time purchase (`TelemetryDeck.Purchase.type`).
    ///   - usdRates: US dollars per unit of each currency.
    ///   - parameters: the app's own parameters; they win over the preset's on a clash.
    ///   - customUserID: a user identifier for this event only.
    /// - Returns: the input to pass to `event(_:)` or `send(_:)`.
    public static func purchaseCompleted(
        productID: String,
        price: Double,
        currencyCode: String = "USD",
        countryCode: String? = nil,
        isSubscription: Bool,
        usdRates: [String: Double] = PurchaseCurrency.approximateUSDRates,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) -> EventInput {
        var own: EventParameters = [
            DefaultParams.Purchase.productID.rawValue: productID,
            DefaultParams.Purchase.type.rawValue: isSubscription
                ? PurchaseCurrency.subscriptionType : PurchaseCurrency.oneTimePurchaseType,
            DefaultParams.Purchase.currencyCode.rawValue: currencyCode,
        ]
        if let countryCode { own[DefaultParams.Purchase.countryCode] = countryCode }
        return preset(
            DefaultEvents.Purchase.completed,
            own,
            parameters: parameters,
            floatValue: PurchaseCurrency.usd(price, currencyCode: currencyCode, rates: usdRates),
            customUserID: customUserID
        )
    }

    /// `TelemetryDeck.Purchase.freeTrialStarted` for the product whose trial began.
    public static func freeTrialStarted(
        productID: String,
        countryCode: String? = nil,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) -> EventInput {
        var own: EventParameters = [
            DefaultParams.Purchase.productID.rawValue: productID,
            DefaultParams.Purchase.type.rawValue: PurchaseCurrency.subscriptionType,
        ]
        if let countryCode { own[DefaultParams.Purchase.countryCode] = countryCode }
        return preset(DefaultEvents.Purchase.freeTrialStarted, own, parameters: parameters, customUserID: customUserID)
    }
}

/// Currency facts for purchase events.
public enum PurchaseCurrency {
    /// `TelemetryDeck.Purchase.type` of a subscription.
    public static let subscriptionType = "subscription"
    /// `TelemetryDeck.Purchase.type` of anything else.
    public static let oneTimePurchaseType = "one-time-purchase"

    /// US dollars per unit of common App Store currencies: approximate (late 2025), good for
    /// revenue trends, not for accounting. Pass current rates where they matter.
    public static let approximateUSDRates: [String: Double] = [
        "USD": 1, "EUR": 1.16, "GBP": 1.33, "CHF": 1.25, "JPY": 0.0066, "CNY": 0.14, "INR": 0.0113,
        "KRW": 0.0007, "CAD": 0.72, "AUD": 0.65, "NZD": 0.57, "SGD": 0.77, "HKD": 0.128, "TWD": 0.032,
        "SEK": 0.105, "NOK": 0.099, "DKK": 0.155, "PLN": 0.27, "CZK": 0.047, "HUF": 0.003, "TRY": 0.024,
        "BRL": 0.19, "MXN": 0.054, "ZAR": 0.057, "ILS": 0.30, "AED": 0.272, "SAR": 0.267, "THB": 0.031,
        "IDR": 0.00006, "MYR": 0.24, "PHP": 0.017, "VND": 0.000038, "EGP": 0.021, "NGN": 0.00068,
        "PKR": 0.0035, "CLP": 0.00105, "COP": 0.00026, "PEN": 0.29, "RON": 0.23,
    ]

    /// `price` in US dollars, rounded to cents; unchanged when `currencyCode` has no rate.
    public static func usd(_ price: Double, currencyCode: String, rates: [String: Double]) -> Double {
        guard let rate = rates[currencyCode.uppercased()] else { return price }
        return (price * rate * 100).rounded() / 100
    }
}
