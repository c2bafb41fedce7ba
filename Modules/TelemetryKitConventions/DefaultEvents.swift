/// The names of the events the SDK and its presets send, as TelemetryDeck's dashboards
/// expect them (`TelemetryDeck.<Group>.<name>`).
///
/// Use a case wherever a name is expected; each is a `String` raw value:
///
/// ```swift
/// await Telemetry.event(DefaultEvents.Activation.onboardingCompleted)
/// #expect(events.map(\.type) == [DefaultEvents.Session.started.rawValue])
/// ```
public enum DefaultEvents {
    public enum Session: String, Sendable, CaseIterable {
        case started = "TelemetryDeck.Session.started"
    }

    public enum Navigation: String, Sendable, CaseIterable {
        case pathChanged = "TelemetryDeck.Navigation.pathChanged"
    }

    public enum Acquisition: String, Sendable, CaseIterable {
        case userAcquired = "TelemetryDeck.Acquisition.userAcquired"
        case leadStarted = "TelemetryDeck.Acquisition.leadStarted"
        case leadConverted = "TelemetryDeck.Acquisition.leadConverted"
        case newInstallDetected = "TelemetryDeck.Acquisition.newInstallDetected"
    }

    public enum Activation: String, Sendable, CaseIterable {
        case onboardingCompleted = "TelemetryDeck.Activation.onboardingCompleted"
        case coreFeatureUsed = "TelemetryDeck.Activation.coreFeatureUsed"
    }

    public enum Referral: String, Sendable, CaseIterable {
        case sent = "TelemetryDeck.Referral.sent"
        case userRatingSubmitted = "TelemetryDeck.Referral.userRatingSubmitted"
    }

    public enum Revenue: String, Sendable, CaseIterable {
        case paywallShown = "TelemetryDeck.Revenue.paywallShown"
    }

    public enum Purchase: String, Sendable, CaseIterable {
        case completed = "TelemetryDeck.Purchase.completed"
        case freeTrialStarted = "TelemetryDeck.Purchase.freeTrialStarted"
        case convertedFromTrial = "TelemetryDeck.Purchase.convertedFromTrial"
    }

    public enum Error: String, Sendable, CaseIterable {
        case occurred = "TelemetryDeck.Error.occurred"
    }
}
