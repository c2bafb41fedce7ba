extension Telemetry {
    /// The last navigation destination sent through the facade, for the whole process.
    static let navigationHistory = NavigationHistory()

    /// The running client's logger, or standard error before `initialize`.
    private static var presetLogger: any Logging {
        client?.logger ?? StandardErrorLogger()
    }

    /// Sends `TelemetryDeck.Navigation.pathChanged` from `source` to `destination`
    /// (fire-and-forget) and remembers `destination` for ``navigationPathChanged(to:customUserID:)``.
    ///
    /// ```swift
    /// Telemetry.navigationPathChanged(from: "settings", to: "settings/privacy")
    /// ```
    public static func navigationPathChanged(from source: String, to destination: String, customUserID: String? = nil) {
        navigationHistory.record(destination)
        signal(TelemetryPresets.navigationPathChanged(from: source, to: destination, customUserID: customUserID))
    }

    /// Sends `TelemetryDeck.Navigation.pathChanged` from the previous destination sent
    /// through the facade (or "" for the first one) to `destination`.
    public static func navigationPathChanged(to destination: String, customUserID: String? = nil) {
        let source = navigationHistory.advance(to: destination)
        signal(TelemetryPresets.navigationPathChanged(from: source, to: destination, customUserID: customUserID))
    }

    /// Sends `TelemetryDeck.Error.occurred` with an id, and a category and message when given.
    ///
    /// ```swift
    /// Telemetry.errorOccurred(id: "ImportFailed", category: .userInput, message: "empty file")
    /// ```
    public static func errorOccurred(
        id: String,
        category: ErrorCategory? = nil,
        message: String? = nil,
        parameters: EventParameters = [:],
        floatValue: Double? = nil,
        customUserID: String? = nil
    ) {
        signal(
            TelemetryPresets.errorOccurred(
                id: id,
                category: category,
                message: message,
                parameters: parameters,
                floatValue: floatValue,
                customUserID: customUserID
            )
        )
    }

    /// Sends `TelemetryDeck.Error.occurred` for a Swift error (id from
    /// ``TelemetryPresets/errorID(of:)`` unless given, message from its description unless given).
    ///
    /// ```swift
    /// do { try importFile() } catch { Telemetry.errorOccurred(error) }
    /// ```
    public static func errorOccurred(
        _ error: any Error,
        id: String? = nil,
        category: ErrorCategory = .thrownException,
        message: String? = nil,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) {
        signal(
            TelemetryPresets.errorOccurred(
                error,
                id: id,
                category: category,
                message: message,
                parameters: parameters,
                customUserID: customUserID
            )
        )
    }

    /// Sends `TelemetryDeck.Acquisition.userAcquired` with the channel the user came from.
    public static func acquiredUser(channel: String, parameters: EventParameters = [:], customUserID: String? = nil) {
        signal(TelemetryPresets.acquiredUser(channel: channel, parameters: parameters, customUserID: customUserID))
    }

    /// Sends `TelemetryDeck.Activation.onboardingCompleted`.
    public static func onboardingCompleted(parameters: EventParameters = [:], customUserID: String? = nil) {
        signal(TelemetryPresets.onboardingCompleted(parameters: parameters, customUserID: customUserID))
    }

    /// Sends `TelemetryDeck.Activation.coreFeatureUsed` with the feature's name.
    public static func coreFeatureUsed(
        featureName: String,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) {
        signal(
            TelemetryPresets.coreFeatureUsed(
                featureName: featureName,
                parameters: parameters,
                customUserID: customUserID
            )
        )
    }

    /// Sends `TelemetryDeck.UserInfo.userRatingSubmitted` with a rating in 0…10 and an
    /// optional comment. A rating outside 0…10 is not sent; a warning is logged.
    public static func userRatingSubmitted(
        rating: Int,
        comment: String? = nil,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) {
        do {
            signal(
                try TelemetryPresets.userRatingSubmitted(
                    rating: rating,
                    comment: comment,
                    parameters: parameters,
                    customUserID: customUserID
                )
            )
        } catch {
            presetLogger.log(.warning, error.description, eventName: TelemetryPresets.UserInfo.userRatingSubmitted)
        }
    }

    /// Sends `TelemetryDeck.Purchase.paywallShown` with the reason the paywall appeared.
    public static func paywallShown(reason: String, parameters: EventParameters = [:], customUserID: String? = nil) {
        signal(TelemetryPresets.paywallShown(reason: reason, parameters: parameters, customUserID: customUserID))
    }

    /// Sends `TelemetryDeck.Purchase.completed` with the price (in `currencyCode`) as `floatValue`.
    ///
    /// On Apple platforms `purchaseCompleted(transaction:)` reads these from a StoreKit
    /// transaction.
    public static func purchaseCompleted(
        productID: String,
        price: Double,
        currencyCode: String? = nil,
        countryCode: String? = nil,
        isSubscription: Bool,
        offerID: String? = nil,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) {
        signal(
            TelemetryPresets.purchaseCompleted(
                productID: productID,
                price: price,
                currencyCode: currencyCode,
                countryCode: countryCode,
                isSubscription: isSubscription,
                offerID: offerID,
                parameters: parameters,
                customUserID: customUserID
            )
        )
    }
}
