// Full Foundation: `Error.localizedDescription` (the message of an error preset) lives there.
public import Foundation
public import TelemetryKit

/// TelemetryDeck's presets as event inputs: the one place their names, keys and rules live.
///
/// The `Telemetry` facade, `TelemetryClient` (through this module) and
/// `AnalyticsClient.telemetry` all send these, so an event looks the same whichever way an
/// app sends it. Send one with any client:
///
/// ```swift
/// client.event(.leadStarted(leadID: "lead-42"))
/// client.event(.navigationPathChanged(from: "settings", to: "settings/privacy"))
/// ```
///
/// Every preset is an SDK event (the reserved `TelemetryDeck.` prefix passes validation and
/// the event prefix is not added). The caller's `parameters` are laid over the preset's
/// own, so a caller's value wins on a key clash, as in TelemetryDeck v3.
extension EventInput {
    /// The value of `TelemetryDeck.Navigation.schemaVersion`.
    public static let navigationSchemaVersion = "1"
    /// Ratings `userRatingSubmitted` accepts.
    public static let ratingRange = 0...10

    /// `TelemetryDeck.Navigation.pathChanged` from `source` to `destination`.
    public static func navigationPathChanged(
        from source: String,
        to destination: String,
        customUserID: String? = nil
    ) -> EventInput {
        preset(
            DefaultEvents.Navigation.pathChanged,
            [
                DefaultParams.Navigation.schemaVersion.rawValue: navigationSchemaVersion,
                DefaultParams.Navigation.identifier.rawValue: "\(source) -> \(destination)",
                DefaultParams.Navigation.sourcePath.rawValue: source,
                DefaultParams.Navigation.destinationPath.rawValue: destination,
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
        var own: EventParameters = [DefaultParams.Error.id.rawValue: id]
        if let category { own[DefaultParams.Error.category] = category.rawValue }
        if let message { own[DefaultParams.Error.message] = message }
        return preset(
            DefaultEvents.Error.occurred,
            own,
            parameters: parameters,
            floatValue: floatValue,
            customUserID: customUserID
        )
    }

    /// `TelemetryDeck.Error.occurred` for an error with a stable id; the message is the
    /// error's localized description unless given (pass one when the description may hold
    /// personal data).
    public static func errorOccurred(
        identifiableError: any IdentifiableError,
        category: ErrorCategory = .thrownException,
        message: String? = nil,
        parameters: EventParameters = [:],
        floatValue: Double? = nil,
        customUserID: String? = nil
    ) -> EventInput {
        errorOccurred(
            id: identifiableError.id,
            category: category,
            message: message ?? identifiableError.localizedDescription,
            parameters: parameters,
            floatValue: floatValue,
            customUserID: customUserID
        )
    }

    /// `TelemetryDeck.Acquisition.userAcquired` with the channel the user came from.
    public static func acquiredUser(
        channel: String,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) -> EventInput {
        preset(
            DefaultEvents.Acquisition.userAcquired,
            [DefaultParams.Acquisition.channel.rawValue: channel],
            parameters: parameters,
            customUserID: customUserID
        )
    }

    /// `TelemetryDeck.Acquisition.leadStarted`: a potential customer entered the funnel.
    public static func leadStarted(
        leadID: String,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) -> EventInput {
        preset(
            DefaultEvents.Acquisition.leadStarted,
            [DefaultParams.Acquisition.leadID.rawValue: leadID],
            parameters: parameters,
            customUserID: customUserID
        )
    }

    /// `TelemetryDeck.Acquisition.leadConverted`: the lead became a customer.
    public static func leadConverted(
        leadID: String,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) -> EventInput {
        preset(
            DefaultEvents.Acquisition.leadConverted,
            [DefaultParams.Acquisition.leadID.rawValue: leadID],
            parameters: parameters,
            customUserID: customUserID
        )
    }

    /// `TelemetryDeck.Activation.onboardingCompleted`.
    public static func onboardingCompleted(
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) -> EventInput {
        preset(DefaultEvents.Activation.onboardingCompleted, [:], parameters: parameters, customUserID: customUserID)
    }

    /// `TelemetryDeck.Activation.coreFeatureUsed` with the feature's name.
    public static func coreFeatureUsed(
        featureName: String,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) -> EventInput {
        preset(
            DefaultEvents.Activation.coreFeatureUsed,
            [DefaultParams.Activation.featureName.rawValue: featureName],
            parameters: parameters,
            customUserID: customUserID
        )
    }

    /// `TelemetryDeck.Referral.sent`: the user invited others (how many, and how, e.g. "code").
    public static func referralSent(
        receiversCount: Int = 1,
        kind: String? = nil,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) -> EventInput {
        var own: EventParameters = [DefaultParams.Referral.receiversCount.rawValue: receiversCount]
        if let kind { own[DefaultParams.Referral.kind] = kind }
        return preset(DefaultEvents.Referral.sent, own, parameters: parameters, customUserID: customUserID)
    }

    /// `TelemetryDeck.Referral.userRatingSubmitted` with a rating in 0…10 and an optional comment.
    ///
    /// - Throws: ``PresetError/ratingOutOfRange(_:)`` for a rating outside 0…10.
    public static func userRatingSubmitted(
        rating: Int,
        comment: String? = nil,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) throws(PresetError) -> EventInput {
        guard ratingRange.contains(rating) else { throw .ratingOutOfRange(rating) }
        var own: EventParameters = [DefaultParams.Referral.ratingValue.rawValue: rating]
        if let comment, !comment.isEmpty { own[DefaultParams.Referral.ratingComment] = comment }
        return preset(
            DefaultEvents.Referral.userRatingSubmitted,
            own,
            parameters: parameters,
            customUserID: customUserID
        )
    }

    /// `TelemetryDeck.Revenue.paywallShown` with the reason the paywall appeared.
    public static func paywallShown(
        reason: String,
        parameters: EventParameters = [:],
        customUserID: String? = nil
    ) -> EventInput {
        preset(
            DefaultEvents.Revenue.paywallShown,
            [DefaultParams.Revenue.paywallShowReason.rawValue: reason],
            parameters: parameters,
            customUserID: customUserID
        )
    }

    /// A duration event: `seconds` rounded to milliseconds as `floatValue` and as
    /// `TelemetryDeck.Signal.durationInSeconds`, over the start parameters laid under the stop
    /// parameters.
    ///
    /// Unlike the presets this is the app's own event (its name is the app's), so it is not
    /// marked as an SDK event: event and parameter prefixes apply to it.
    public static func durationEvent(
        _ name: String,
        seconds: Double,
        startParameters: EventParameters = [:],
        stopParameters: EventParameters = [:],
        timestamp: Date = Date()
    ) -> EventInput {
        let rounded = (max(0, seconds) * 1000).rounded() / 1000
        var parameters = startParameters.merging(stopParameters)
        parameters[DefaultParams.Event.durationInSeconds] = rounded
        return EventInput(name, parameters: parameters, floatValue: rounded, timestamp: timestamp)
    }

    /// An SDK event named `name` with the preset's `own` parameters under the caller's.
    static func preset(
        _ name: some RawRepresentable<String>,
        _ own: EventParameters,
        parameters: EventParameters = [:],
        floatValue: Double? = nil,
        customUserID: String? = nil
    ) -> EventInput {
        EventInput(
            name.rawValue,
            parameters: own.merging(parameters),
            floatValue: floatValue,
            customUserID: customUserID,
            skipsReservedPrefixValidation: true
        )
    }
}
