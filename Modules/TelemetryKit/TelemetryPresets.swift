#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Ready-made events with fixed names and parameter keys: the names and keys live here, in
/// one place.
///
/// The names follow the `TelemetryDeck.*` scheme (spec/02), so dashboards built for that
/// scheme read these events as they are. Send them with the client or the facade:
///
/// ```swift
/// client.navigationPathChanged(from: "settings", to: "settings/privacy")
/// Telemetry.errorOccurred(id: "ImportFailed", category: .thrownException, message: "bad CSV")
/// ```
///
/// The builders below return the `EventInput` to send (marked SDK-internal, so the
/// reserved `TelemetryDeck.` prefix passes validation). Caller parameters are merged in,
/// and the preset's own keys win on a collision.
public enum TelemetryPresets {
    /// Navigation between screens or paths.
    public enum Navigation {
        public static let pathChanged = "TelemetryDeck.Navigation.pathChanged"
        public static let schemaVersion = "TelemetryDeck.Navigation.schemaVersion"
        public static let identifier = "TelemetryDeck.Navigation.identifier"
        public static let sourcePath = "TelemetryDeck.Navigation.sourcePath"
        public static let destinationPath = "TelemetryDeck.Navigation.destinationPath"
        /// The value of `schemaVersion`.
        public static let currentSchemaVersion = "1"
    }

    /// Errors the app reports.
    public enum Errors {
        public static let occurred = "TelemetryDeck.Error.occurred"
        public static let id = "TelemetryDeck.Error.id"
        public static let category = "TelemetryDeck.Error.category"
        public static let message = "TelemetryDeck.Error.message"
    }

    /// Where users come from.
    public enum Acquisition {
        public static let userAcquired = "TelemetryDeck.Acquisition.userAcquired"
        public static let channel = "TelemetryDeck.Acquisition.channel"
    }

    /// Steps that show a user got value from the app.
    public enum Activation {
        public static let onboardingCompleted = "TelemetryDeck.Activation.onboardingCompleted"
        public static let coreFeatureUsed = "TelemetryDeck.Activation.coreFeatureUsed"
        public static let featureName = "TelemetryDeck.Activation.featureName"
    }

    /// What users tell about the app.
    public enum UserInfo {
        public static let userRatingSubmitted = "TelemetryDeck.UserInfo.userRatingSubmitted"
        public static let rating = "TelemetryDeck.UserInfo.rating"
        public static let comment = "TelemetryDeck.UserInfo.comment"
        /// Ratings outside this range are not sent.
        public static let ratingRange = 0...10
    }

    /// Paywalls and purchases.
    public enum Purchase {
        public static let paywallShown = "TelemetryDeck.Purchase.paywallShown"
        public static let reason = "TelemetryDeck.Purchase.reason"
        public static let completed = "TelemetryDeck.Purchase.completed"
        public static let type = "TelemetryDeck.Purchase.type"
        public static let productID = "TelemetryDeck.Purchase.productID"
        public static let countryCode = "TelemetryDeck.Purchase.countryCode"
        public static let currencyCode = "TelemetryDeck.Purchase.currencyCode"
        public static let offerID = "TelemetryDeck.Purchase.offerID"
        /// Values of `type`.
        public static let subscription = "subscription"
        public static let oneTimePurchase = "one-time-purchase"
    }

    /// Duration events.
    public enum Duration {
        /// The measured seconds (millisecond precision), also sent as the `floatValue`.
        public static let durationInSeconds = "TelemetryDeck.Signal.durationInSeconds"
    }

    // MARK: Builders

    /// `TelemetryDeck.Navigation.pathChanged` from `source` to `destination`.
    public static func navigationPathChanged(
        from source: String,
        to destination: String,
        customUserID: String? = nil
    ) -> EventInput {
        internalEvent(
            Navigation.pathChanged,
            presetParameters: [
                Navigation.schemaVersion: Navigation.currentSchemaVersion,
                Navigation.identifier: "\(source) -> \(destination)",
                Navigation.sourcePath: source,
                Navigation.destinationPath: destination,
            ],
            customUserID: customUserID
        )
    }

    /// `TelemetryDeck.Error.occurred` with an id, and a category and message when given.
    public static func errorOccurred(
        id: String,
        category: ErrorCategory? = nil,
        message: String? = nil,
        parameters: EventParameters = [:],
        floatValue: Double? = nil,
        customUserID: String? = nil
    ) -> EventInput {
        var preset: EventParameters = [Errors.id: id]
        if let category { preset.set(Errors.category, category.rawValue) }
        if let message { preset.set(Errors.message, message) }
        return internalEvent(
            Errors.occurred,
            parameters: parameters,
            presetParameters: preset,
            floatValue: floatValue,
            customUserID: customUserID
        )
    }

    /// `TelemetryDeck.Error.occurred` for a Swift error.
    ///
    /// The id is `errorID(of:)` unless given; the message is the error's description unless
    /// given (pass an explicit `message` when the description may hold personal data).
    public static func errorOccurred(
        _ error: any Error,
        id: String? = nil,
        category: ErrorCategory = .thrownException,
        message: String? = nil,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) -> EventInput {
        errorOccurred(
            id: id ?? errorID(of: error),
            category: category,
            message: message ?? String(describing: error),
            parameters: parameters,
            customUserID: customUserID
        )
    }

    /// A stable id for an error, without the values it carries: `IdentifiableError.id`, or
    /// `Type.case` for an enum (`ImportError.badHeader` for `.badHeader(line: 3)`), or the
    /// type name.
    public static func errorID(of error: any Error) -> String {
        if let identifiable = error as? any IdentifiableError { return identifiable.id }
        let typeName = String(describing: type(of: error))
        let mirror = Mirror(reflecting: error)
        guard mirror.displayStyle == .enum else { return typeName }
        // A case with a payload reflects as one child labelled with the case name.
        if let label = mirror.children.first?.label { return "\(typeName).\(label)" }
        return "\(typeName).\(String(describing: error))"
    }

    /// `TelemetryDeck.Acquisition.userAcquired` with the acquisition channel.
    public static func acquiredUser(
        channel: String,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) -> EventInput {
        internalEvent(
            Acquisition.userAcquired,
            parameters: parameters,
            presetParameters: [Acquisition.channel: channel],
            customUserID: customUserID
        )
    }

    /// `TelemetryDeck.Activation.onboardingCompleted`.
    public static func onboardingCompleted(
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) -> EventInput {
        internalEvent(Activation.onboardingCompleted, parameters: parameters, customUserID: customUserID)
    }

    /// `TelemetryDeck.Activation.coreFeatureUsed` with the feature's name.
    public static func coreFeatureUsed(
        featureName: String,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) -> EventInput {
        internalEvent(
            Activation.coreFeatureUsed,
            parameters: parameters,
            presetParameters: [Activation.featureName: featureName],
            customUserID: customUserID
        )
    }

    /// `TelemetryDeck.UserInfo.userRatingSubmitted` with a rating in 0…10 and an optional comment.
    ///
    /// - Throws: ``PresetError/ratingOutOfRange(_:)`` for a rating outside 0…10.
    public static func userRatingSubmitted(
        rating: Int,
        comment: String? = nil,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) throws(PresetError) -> EventInput {
        guard UserInfo.ratingRange.contains(rating) else { throw .ratingOutOfRange(rating) }
        var preset: EventParameters = [UserInfo.rating: rating]
        if let comment, !comment.isEmpty { preset.set(UserInfo.comment, comment) }
        return internalEvent(
            UserInfo.userRatingSubmitted,
            parameters: parameters,
            presetParameters: preset,
            customUserID: customUserID
        )
    }

    /// `TelemetryDeck.Purchase.paywallShown` with the reason the paywall appeared.
    public static func paywallShown(
        reason: String,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) -> EventInput {
        internalEvent(
            Purchase.paywallShown,
            parameters: parameters,
            presetParameters: [Purchase.reason: reason],
            customUserID: customUserID
        )
    }

    /// `TelemetryDeck.Purchase.completed`; `price` (in `currencyCode`) is the `floatValue`.
    ///
    /// Works on every platform; on Apple platforms `TelemetryKitDefaults` adds an overload
    /// that reads a StoreKit `Transaction`.
    public static func purchaseCompleted(
        productID: String,
        price: Double,
        currencyCode: String? = nil,
        countryCode: String? = nil,
        isSubscription: Bool,
        offerID: String? = nil,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) -> EventInput {
        var preset: EventParameters = [
            Purchase.productID: productID,
            Purchase.type: isSubscription ? Purchase.subscription : Purchase.oneTimePurchase,
        ]
        if let currencyCode { preset.set(Purchase.currencyCode, currencyCode) }
        if let countryCode { preset.set(Purchase.countryCode, countryCode) }
        if let offerID { preset.set(Purchase.offerID, offerID) }
        return internalEvent(
            Purchase.completed,
            parameters: parameters,
            presetParameters: preset,
            floatValue: price,
            customUserID: customUserID
        )
    }

    /// A duration event: `seconds` rounded to milliseconds as `floatValue` and as
    /// `TelemetryDeck.Signal.durationInSeconds`, over the start parameters laid under the stop
    /// parameters.
    ///
    /// Unlike the other presets this is the app's own event (its name is the app's), so it
    /// is not marked SDK-internal: event and parameter prefixes apply to it.
    public static func durationEvent(
        _ name: String,
        seconds: Double,
        startParameters: EventParameters = [:],
        stopParameters: EventParameters = [:],
        timestamp: Date = Date()
    ) -> EventInput {
        let rounded = (max(0, seconds) * 1000).rounded() / 1000
        var parameters = startParameters.merging(stopParameters)
        parameters.set(Duration.durationInSeconds, rounded)
        return EventInput(name, parameters: parameters, floatValue: rounded, timestamp: timestamp)
    }

    private static func internalEvent(
        _ name: String,
        parameters: EventParameters = [:],
        presetParameters: EventParameters = [:],
        floatValue: Double? = nil,
        customUserID: String? = nil
    ) -> EventInput {
        EventInput(
            name,
            parameters: parameters.merging(presetParameters),
            floatValue: floatValue,
            customUserID: customUserID,
            skipsReservedPrefixValidation: true
        )
    }
}

/// What kind of error `errorOccurred` reports (`TelemetryDeck.Error.category`).
public enum ErrorCategory: String, Sendable, Hashable, CaseIterable {
    /// An error thrown and caught in code.
    case thrownException = "thrown-exception"
    /// Invalid input from the user.
    case userInput = "user-input"
    /// The app reached an unexpected state.
    case appState = "app-state"
}

/// An error with a stable id for `errorOccurred(_:)`.
///
/// ```swift
/// struct ImportError: IdentifiableError { let line: Int; var id: String { "ImportError.badLine" } }
/// ```
public protocol IdentifiableError: Error {
    /// Groups occurrences of this error; keep values such as line numbers out of it.
    var id: String { get }
}

/// Why a preset was not sent.
public enum PresetError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `userRatingSubmitted` got a rating outside 0…10.
    case ratingOutOfRange(Int)

    public var description: String {
        switch self {
        case .ratingOutOfRange(let rating):
            return "userRatingSubmitted: rating \(rating) is outside 0...10; the event was not sent"
        }
    }
}
