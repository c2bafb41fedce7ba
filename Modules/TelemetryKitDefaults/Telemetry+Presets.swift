import TelemetryKitSupport
/// TelemetryDeck v3's presets on the facade. Each builds its event with the matching
/// `EventInput` preset of `TelemetryKitPresets` (where names, keys and rules live) and sends
/// it like `event`: the `async` forms return once the event is cached, the deprecated
/// `[String: String]` forms return at once.
extension Telemetry {
    /// Records `destination` as the latest navigation destination and returns the one before
    /// (or ""): the running client's history, else the facade's before `initialize`.
    private static func advanceNavigation(to destination: String) -> String {
        state.withLock { state in
            if let client = state.client {
                return client.navigationHistory.advance(to: destination)
            }
            defer { state.gathered.navigationDestination = destination }
            return state.gathered.navigationDestination ?? ""
        }
    }

    /// The logger for presets that are not sent (an out-of-range rating).
    private static var presetLogger: any Logging { client?.logger ?? StandardErrorLogger() }

    // MARK: Errors

    /// Sends `TelemetryDeck.Error.occurred` with an id, and a category and message when given.
    ///
    /// - Parameters:
    ///   - id: groups occurrences of the same error, e.g. `ImportError.badHeader`.
    ///   - category: thrown exception, user input or app state.
    ///   - message: a human-readable description (keep personal data out).
    ///   - parameters: the app's own parameters; they win over the preset's on a clash.
    ///   - floatValue: a number to chart with the event.
    ///   - customUserID: a user identifier for this event only.
    public static func errorOccurred(
        id: String,
        category: ErrorCategory? = nil,
        message: String? = nil,
        parameters: EventParameters = [:],
        floatValue: Double? = nil,
        customUserID: String? = nil
    ) async {
        await send(
            .errorOccurred(
                id: id,
                category: category,
                message: message,
                parameters: parameters,
                floatValue: floatValue,
                customUserID: customUserID
            )
        )
    }

    /// Sends `TelemetryDeck.Error.occurred` for an error with a stable id; the message is its
    /// localized description.
    ///
    /// ```swift
    /// } catch {
    ///     await Telemetry.errorOccurred(identifiableError: error.with(id: "Import.failed"))
    /// }
    /// ```
    public static func errorOccurred(
        identifiableError: any IdentifiableError,
        category: ErrorCategory = .thrownException,
        parameters: EventParameters = [:],
        floatValue: Double? = nil,
        customUserID: String? = nil
    ) async {
        await errorOccurred(
            identifiableError: identifiableError,
            category: category,
            message: nil,
            parameters: parameters,
            floatValue: floatValue,
            customUserID: customUserID
        )
    }

    /// Sends `TelemetryDeck.Error.occurred` for an error with a stable id and your own message
    /// (`nil`: its localized description).
    public static func errorOccurred(
        identifiableError: any IdentifiableError,
        category: ErrorCategory = .thrownException,
        message: String? = nil,
        parameters: EventParameters = [:],
        floatValue: Double? = nil,
        customUserID: String? = nil
    ) async {
        await send(
            .errorOccurred(
                identifiableError: identifiableError,
                category: category,
                message: message,
                parameters: parameters,
                floatValue: floatValue,
                customUserID: customUserID
            )
        )
    }

    // MARK: Navigation

    /// Sends `TelemetryDeck.Navigation.pathChanged` from `source` to `destination`, and
    /// remembers `destination` for `navigationPathChanged(to:customUserID:)`.
    public static func navigationPathChanged(
        from source: String,
        to destination: String,
        customUserID: String? = nil
    )
        async
    {
        _ = advanceNavigation(to: destination)
        await send(.navigationPathChanged(from: source, to: destination, customUserID: customUserID))
    }

    /// Sends `TelemetryDeck.Navigation.pathChanged` from the previous destination (or "" for
    /// the first one) to `destination`.
    public static func navigationPathChanged(to destination: String, customUserID: String? = nil) async {
        let source = advanceNavigation(to: destination)
        await send(.navigationPathChanged(from: source, to: destination, customUserID: customUserID))
    }

    // MARK: Pirate metrics

    /// Sends `TelemetryDeck.Acquisition.userAcquired` with the channel the user came from.
    public static func acquiredUser(
        channel: String,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    )
        async
    {
        await send(.acquiredUser(channel: channel, parameters: parameters, customUserID: customUserID))
    }

    /// Sends `TelemetryDeck.Acquisition.leadStarted`.
    public static func leadStarted(leadID: String, parameters: EventParameters = [:], customUserID: String? = nil) async
    {
        await send(.leadStarted(leadID: leadID, parameters: parameters, customUserID: customUserID))
    }

    /// Sends `TelemetryDeck.Acquisition.leadConverted`.
    public static func leadConverted(
        leadID: String,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    )
        async
    {
        await send(.leadConverted(leadID: leadID, parameters: parameters, customUserID: customUserID))
    }

    /// Sends `TelemetryDeck.Activation.onboardingCompleted`.
    public static func onboardingCompleted(parameters: EventParameters = [:], customUserID: String? = nil) async {
        await send(.onboardingCompleted(parameters: parameters, customUserID: customUserID))
    }

    /// Sends `TelemetryDeck.Activation.coreFeatureUsed` with the feature's name.
    public static func coreFeatureUsed(
        featureName: String,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) async {
        await send(.coreFeatureUsed(featureName: featureName, parameters: parameters, customUserID: customUserID))
    }

    /// Sends `TelemetryDeck.Referral.sent`: how many people the user invited, and how.
    public static func referralSent(
        receiversCount: Int,
        kind: String? = nil,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) async {
        await send(
            .referralSent(
                receiversCount: receiversCount,
                kind: kind,
                parameters: parameters,
                customUserID: customUserID
            )
        )
    }

    /// Sends `TelemetryDeck.Referral.userRatingSubmitted` with a rating in 0…10 and an
    /// optional comment. A rating outside 0…10 is not sent; an error is logged.
    public static func userRatingSubmitted(
        rating: Int,
        comment: String? = nil,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) async {
        do {
            await send(
                try .userRatingSubmitted(
                    rating: rating,
                    comment: comment,
                    parameters: parameters,
                    customUserID: customUserID
                )
            )
        } catch {
            presetLogger.log(.error, error.description, eventName: DefaultEvents.Referral.userRatingSubmitted.rawValue)
        }
    }

    /// Sends `TelemetryDeck.Revenue.paywallShown` with the reason the paywall appeared.
    public static func paywallShown(
        reason: String,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    )
        async
    {
        await send(.paywallShown(reason: reason, parameters: parameters, customUserID: customUserID))
    }

    /// Sends `TelemetryDeck.Purchase.completed` with the price in US dollars as `floatValue`
    /// (on Apple platforms `purchaseCompleted(transaction:)` reads these from StoreKit).
    public static func purchaseCompleted(
        productID: String,
        price: Double,
        currencyCode: String = "USD",
        countryCode: String? = nil,
        isSubscription: Bool,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) async {
        await send(
            .purchaseCompleted(
                productID: productID,
                price: price,
                currencyCode: currencyCode,
                countryCode: countryCode,
                isSubscription: isSubscription,
                parameters: parameters,
                customUserID: customUserID
            )
        )
    }
}

// MARK: - v3's deprecated [String: String] forms (synchronous, fire-and-forget)

// As in v3, a string-only dictionary literal picks these even after `await` (a literal
// prefers `[String: String]` to `EventParameters`): the event is sent without waiting, and
// the compiler warns that the call is deprecated. Pass `EventParameters` to wait.

extension Telemetry {
    @available(*, deprecated, message: "Use the async form with EventParameters")
    public static func errorOccurred(
        id: String,
        category: ErrorCategory? = nil,
        message: String? = nil,
        parameters: [String: String] = [:],
        floatValue: Double? = nil,
        customUserID: String? = nil
    ) {
        signal(
            .errorOccurred(
                id: id,
                category: category,
                message: message,
                parameters: EventParameters(parameters),
                floatValue: floatValue,
                customUserID: customUserID
            )
        )
    }

    @available(*, deprecated, message: "Use the async form with EventParameters")
    public static func errorOccurred(
        identifiableError: any IdentifiableError,
        category: ErrorCategory = .thrownException,
        parameters: [String: String] = [:],
        floatValue: Double? = nil,
        customUserID: String? = nil
    ) {
        errorOccurred(
            identifiableError: identifiableError,
            category: category,
            message: nil,
            parameters: parameters,
            floatValue: floatValue,
            customUserID: customUserID
        )
    }

    @available(*, deprecated, message: "Use the async form with EventParameters")
    public static func errorOccurred(
        identifiableError: any IdentifiableError,
        category: ErrorCategory = .thrownException,
        message: String? = nil,
        parameters: [String: String] = [:],
        floatValue: Double? = nil,
        customUserID: String? = nil
    ) {
        signal(
            .errorOccurred(
                identifiableError: identifiableError,
                category: category,
                message: message,
                parameters: EventParameters(parameters),
                floatValue: floatValue,
                customUserID: customUserID
            )
        )
    }

    @available(*, deprecated, message: "Use the async form with EventParameters")
    public static func acquiredUser(channel: String, parameters: [String: String] = [:], customUserID: String? = nil) {
        signal(.acquiredUser(channel: channel, parameters: EventParameters(parameters), customUserID: customUserID))
    }

    @available(*, deprecated, message: "Use the async form with EventParameters")
    public static func leadStarted(leadID: String, parameters: [String: String] = [:], customUserID: String? = nil) {
        signal(.leadStarted(leadID: leadID, parameters: EventParameters(parameters), customUserID: customUserID))
    }

    @available(*, deprecated, message: "Use the async form with EventParameters")
    public static func leadConverted(leadID: String, parameters: [String: String] = [:], customUserID: String? = nil) {
        signal(.leadConverted(leadID: leadID, parameters: EventParameters(parameters), customUserID: customUserID))
    }

    @available(*, deprecated, message: "Use the async form with EventParameters")
    public static func onboardingCompleted(parameters: [String: String] = [:], customUserID: String? = nil) {
        signal(.onboardingCompleted(parameters: EventParameters(parameters), customUserID: customUserID))
    }

    @available(*, deprecated, message: "Use the async form with EventParameters")
    public static func coreFeatureUsed(
        featureName: String,
        parameters: [String: String] = [:],
        customUserID: String? = nil
    ) {
        signal(
            .coreFeatureUsed(
                featureName: featureName,
                parameters: EventParameters(parameters),
                customUserID: customUserID
            )
        )
    }

    @available(*, deprecated, message: "Use the async form with EventParameters")
    public static func referralSent(
        receiversCount: Int = 1,
        kind: String? = nil,
        parameters: [String: String] = [:],
        customUserID: String? = nil
    ) {
        signal(
            .referralSent(
                receiversCount: receiversCount,
                kind: kind,
                parameters: EventParameters(parameters),
                customUserID: customUserID
            )
        )
    }

    @available(*, deprecated, message: "Use the async form with EventParameters")
    public static func userRatingSubmitted(
        rating: Int,
        comment: String? = nil,
        parameters: [String: String] = [:],
        customUserID: String? = nil
    ) {
        do {
            signal(
                try .userRatingSubmitted(
                    rating: rating,
                    comment: comment,
                    parameters: EventParameters(parameters),
                    customUserID: customUserID
                )
            )
        } catch {
            presetLogger.log(.error, error.description, eventName: DefaultEvents.Referral.userRatingSubmitted.rawValue)
        }
    }

    @available(*, deprecated, message: "Use the async form with EventParameters")
    public static func paywallShown(reason: String, parameters: [String: String] = [:], customUserID: String? = nil) {
        signal(.paywallShown(reason: reason, parameters: EventParameters(parameters), customUserID: customUserID))
    }

    @available(*, deprecated, message: "Use the async form")
    public static func navigationPathChanged(from source: String, to destination: String, customUserID: String? = nil) {
        _ = advanceNavigation(to: destination)
        signal(.navigationPathChanged(from: source, to: destination, customUserID: customUserID))
    }

    @available(*, deprecated, message: "Use the async form")
    public static func navigationPathChanged(to destination: String, customUserID: String? = nil) {
        let source = advanceNavigation(to: destination)
        signal(.navigationPathChanged(from: source, to: destination, customUserID: customUserID))
    }
}
