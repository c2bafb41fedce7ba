extension TelemetryClient {
    /// Sends `TelemetryDeck.Navigation.pathChanged` from `source` to `destination`
    /// (fire-and-forget), and remembers `destination` for ``navigationPathChanged(to:customUserID:)``.
    ///
    /// Paths are free-form, e.g. `settings/privacy`; keep them free of personal data.
    public func navigationPathChanged(from source: String, to destination: String, customUserID: String? = nil) {
        features.navigation.record(destination)
        event(TelemetryPresets.navigationPathChanged(from: source, to: destination, customUserID: customUserID))
    }

    /// Sends `TelemetryDeck.Navigation.pathChanged` from the previous destination (or "" for
    /// the first one) to `destination`.
    public func navigationPathChanged(to destination: String, customUserID: String? = nil) {
        let source = features.navigation.advance(to: destination)
        event(TelemetryPresets.navigationPathChanged(from: source, to: destination, customUserID: customUserID))
    }

    /// Sends `TelemetryDeck.Error.occurred` with an id, and a category and message when given.
    ///
    /// - Parameters:
    ///   - id: groups occurrences of the same error, e.g. `ImportError.badHeader`.
    ///   - category: thrown exception, user input or app state.
    ///   - message: a human-readable description (keep personal data out).
    public func errorOccurred(
        id: String,
        category: ErrorCategory? = nil,
        message: String? = nil,
        parameters: EventParameters = [:],
        floatValue: Double? = nil,
        customUserID: String? = nil
    ) {
        event(
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
    public func errorOccurred(
        _ error: any Error,
        id: String? = nil,
        category: ErrorCategory = .thrownException,
        message: String? = nil,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) {
        event(
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
    public func acquiredUser(channel: String, parameters: EventParameters = [:], customUserID: String? = nil) {
        event(TelemetryPresets.acquiredUser(channel: channel, parameters: parameters, customUserID: customUserID))
    }

    /// Sends `TelemetryDeck.Activation.onboardingCompleted`.
    public func onboardingCompleted(parameters: EventParameters = [:], customUserID: String? = nil) {
        event(TelemetryPresets.onboardingCompleted(parameters: parameters, customUserID: customUserID))
    }

    /// Sends `TelemetryDeck.Activation.coreFeatureUsed` with the feature's name.
    public func coreFeatureUsed(featureName: String, parameters: EventParameters = [:], customUserID: String? = nil) {
        event(
            TelemetryPresets.coreFeatureUsed(
                featureName: featureName,
                parameters: parameters,
                customUserID: customUserID
            )
        )
    }

    /// Sends `TelemetryDeck.UserInfo.userRatingSubmitted` with a rating in 0…10 and an
    /// optional comment. A rating outside 0…10 is not sent; a warning is logged.
    public func userRatingSubmitted(
        rating: Int,
        comment: String? = nil,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) {
        do {
            event(
                try TelemetryPresets.userRatingSubmitted(
                    rating: rating,
                    comment: comment,
                    parameters: parameters,
                    customUserID: customUserID
                )
            )
        } catch {
            logger.log(.warning, error.description, eventName: TelemetryPresets.UserInfo.userRatingSubmitted)
        }
    }

    /// Sends `TelemetryDeck.Purchase.paywallShown` with the reason the paywall appeared.
    public func paywallShown(reason: String, parameters: EventParameters = [:], customUserID: String? = nil) {
        event(TelemetryPresets.paywallShown(reason: reason, parameters: parameters, customUserID: customUserID))
    }

    /// Sends `TelemetryDeck.Purchase.completed` with the price (in `currencyCode`) as `floatValue`.
    ///
    /// On Apple platforms, `TelemetryKitDefaults` adds `purchaseCompleted(transaction:)`
    /// for StoreKit transactions.
    public func purchaseCompleted(
        productID: String,
        price: Double,
        currencyCode: String? = nil,
        countryCode: String? = nil,
        isSubscription: Bool,
        offerID: String? = nil,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) {
        event(
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
