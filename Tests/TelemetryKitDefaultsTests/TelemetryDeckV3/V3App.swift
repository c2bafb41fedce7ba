// An app written against TelemetryDeck's Swift SDK v3, with only the facade renamed
// (`TelemetryDeck` → `Telemetry`). Every v3 signature that exists on Linux is used here at
// least once; this file compiling is the source-compatibility check, and
// `TelemetryDeckV3CompatibilityTests` runs it. Not exercised: the Apple-only calls
// (`purchaseCompleted(transaction:)`, `trackNavigation(path:)`,
// `TrialConversionProcessor.freeTrialStarted(transaction:)`, `UserDefaultsProcessorStorage`).
// It imports only `TelemetryKitDefaults`, as a v3 app imports only `TelemetryDeck`, and its
// target is built with v3's settings (`NonisolatedNonsendingByDefault`,
// `InferIsolatedConformances`), so its processors are written exactly as v3's.
import Foundation
import TelemetryKitDefaults

// MARK: A v3-shaped ProcessorStorage and Logging, as an app would have written them

/// Storage written for v3's `ProcessorStorage`: exactly its requirements, nothing more.
actor V3DictionaryStorage: ProcessorStorage {
    private var values: [String: Any] = [:]

    func data(forKey key: String) -> Data? { values[key] as? Data }
    func set(_ data: Data?, forKey key: String) { values[key] = data }
    func string(forKey key: String) -> String? { values[key] as? String }
    func set(_ value: String?, forKey key: String) { values[key] = value }
    func integer(forKey key: String) -> Int { values[key] as? Int ?? 0 }
    func set(_ value: Int, forKey key: String) { values[key] = value }
    func bool(forKey key: String) -> Bool { values[key] as? Bool ?? false }
    func set(_ value: Bool, forKey key: String) { values[key] = value }
    func stringArray(forKey key: String) -> [String]? { values[key] as? [String] }

    var keys: [String] { values.keys.sorted() }
}

/// A logger written for v3's three levels (an exhaustive switch).
final class V3Logger: Logging, @unchecked Sendable {
    // Safe: `lines` is only read or written while `lock` is held.
    private let lock = NSLock()
    private var lines: [String] = []

    func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        let label: String
        switch level {
        case .debug: label = "D"
        case .info: label = "I"
        case .error: label = "E"
        }
        let text = message()
        lock.withLock { lines.append("\(label) \(text)") }
    }

    var messages: [String] { lock.withLock { lines } }
}

/// A processor as v3's documentation writes one, using the v3 forms of `EventContext`.
struct V3ScreenProcessor: EventProcessor {
    func process(
        _ input: EventInput,
        context: EventContext,
        next: @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event {
        var context = context
        context.addParameter("App.theme", value: "dark")
        context.addParameter(DefaultParams.Activation.featureName, value: "screens")
        context.addParameters(["App.build": "42"])
        context.addParameters(EventParameters(["App.channel": PayloadValue.string("beta")]))
        context.removeParameter("App.channel")
        if input.name == "Drop.me" { throw ProcessorError.eventFiltered }
        return try await next(input, context)
    }

    func start(storage: any ProcessorStorage, logger: any Logging, emitter: any EventSending) async {
        await storage.set(true, forKey: "V3ScreenProcessor.started")
    }

    func stop() async {}
}

enum V3IdentifiedError: IdentifiableError {
    case quotaExceeded
    var id: String { "Quota.exceeded" }
}

struct V3PlainError: Error {}

/// What the app's code reads back through v3's capability and value APIs.
struct V3Observations: Sendable {
    var sessionID: UUID?
    var newSessionID: UUID?
    var isTestMode = false
    var analyticsDisabledAfterOptOut = false
    var capabilitySessionID: UUID?
    var userIdentifier: String?
    var parameterCount = 0
    var mergedPayload: [String: PayloadValue] = [:]
    var durationResultSeconds: Double?
    var storageKeys: [String] = []
    var errorCode: TelemetryError.Code?
}

/// The app: setup, events, presets, durations, sessions, opt-out — all through v3's API.
enum V3App {
    static func configuration(apiBaseURL: URL) -> Telemetry.Config {
        let config = Telemetry.Config(
            appID: "F2A4C7E8-3F9B-4C60-9A4E-0E1D2C3B4A59",
            namespace: "my-namespace",
            apiBaseURL: apiBaseURL,
            salt: "pepper"
        )
        _ = (config.appID, config.namespace, config.apiBaseURL, config.salt)
        return config
    }

    /// v3's second `initialize`, with every override, and processors built with v3's labels.
    static func start(
        spy: SpyEventTransmitter,
        storage: V3DictionaryStorage,
        logger: V3Logger
    ) async throws(TelemetryError) {
        let processors: [any EventProcessor] = [
            PreviewFilterProcessor(),
            DefaultParametersProcessor(parameters: ["App.plan": "pro"]),
            DefaultPrefixProcessor(eventPrefix: nil, parameterPrefix: nil),
            DefaultPrefixProcessor(),
            ValidationProcessor(),
            TestModeProcessor(override: true),
            UserIdentifierProcessor(defaultUser: "v3-user"),
            SessionTrackingProcessor(sendSessionStartedEvent: true),
            DeviceProcessor(),
            AppInfoProcessor(),
            LocaleProcessor(),
            CalendarProcessor(),
            AccessibilityProcessor(),
            TrialConversionProcessor(),
            V3ScreenProcessor(),
        ]
        try await Telemetry.initialize(
            configuration: configuration(apiBaseURL: URL(string: "http://127.0.0.1:9")!),
            processors: processors,
            cache: InMemoryEventCache(cacheLimit: 1_000),
            transmitter: spy,
            logger: logger,
            storage: storage
        )
    }

    /// v3's first `initialize` and `defaultProcessors` (with every label), failing on a blank
    /// app id with a typed error.
    static func initializeWithBlankAppID() async -> TelemetryError.Code? {
        _ = Telemetry.defaultProcessors(
            defaultUser: nil,
            testMode: true,
            eventPrefix: "App.",
            parameterPrefix: "app.",
            sendSessionStartedEvent: false,
            defaultParameters: ["a": "b"]
        )
        do {
            try await Telemetry.initialize(
                appID: " ",
                namespace: "ns",
                salt: "",
                defaultUser: nil,
                testMode: true,
                eventPrefix: nil,
                parameterPrefix: nil,
                sendSessionStartedEvent: true,
                defaultParameters: [:]
            )
            return nil
        } catch {
            _ = (error.errorDescription, error.debugDescription)
            switch error {
            case TelemetryError.invalidConfiguration: return error.code
            default: return nil
            }
        }
    }

    enum Screen: String {
        case settings = "Screen.settings"
    }

    /// v3's synchronous `event` overloads, from synchronous code (a button action).
    static func buttonTapped() {
        Telemetry.event("Sync.started", parameters: ["count": 3], floatValue: 1.5, customUserID: nil)
        Telemetry.event(Screen.settings, parameters: [:], floatValue: nil, customUserID: nil)
    }

    /// Events, presets and durations, in v3's spellings.
    static func sendEverything() async {
        buttonTapped()
        await Telemetry.event("Sync.finished", parameters: ["ok": true], floatValue: 2, customUserID: "someone")
        await Telemetry.event(Screen.settings)
        await Telemetry.event("Drop.me")

        await Telemetry.navigationPathChanged(from: "home", to: "settings")
        await Telemetry.navigationPathChanged(to: "settings/privacy")
        await Telemetry.errorOccurred(id: "Import.failed", category: .userInput, message: "bad file")
        await Telemetry.errorOccurred(identifiableError: V3IdentifiedError.quotaExceeded)
        await Telemetry.errorOccurred(identifiableError: V3PlainError().with(id: "Plain.error"), message: "custom")
        _ = AnyIdentifiableError(id: "Any.id", error: V3PlainError()).errorDescription
        await Telemetry.acquiredUser(channel: "newsletter")
        await Telemetry.leadStarted(leadID: "lead-1")
        let callerWins: EventParameters = ["TelemetryDeck.Acquisition.leadID": "caller-wins"]
        await Telemetry.leadConverted(leadID: "lead-1", parameters: callerWins)
        await Telemetry.onboardingCompleted()
        await Telemetry.coreFeatureUsed(featureName: "export")
        await Telemetry.referralSent(receiversCount: 2, kind: "link")
        await Telemetry.userRatingSubmitted(rating: 8, comment: "nice")
        await Telemetry.paywallShown(reason: "limit")
        (LegacyCalls() as any LegacyCalling).sendDeprecatedForms()

        await Telemetry.startDurationEvent(
            "Export.duration",
            parameters: ["format": "pdf"],
            includeBackgroundTime: false
        )
        await Telemetry.stopAndSendDurationEvent("Export.duration", parameters: ["pages": 3])
        await Telemetry.startDurationEvent("Cancelled.duration")
        await Telemetry.cancelDurationEvent("Cancelled.duration")
    }

}

/// Reaches the deprecated calls through a protocol, so the compatibility check itself
/// raises no deprecation warning.
protocol LegacyCalling {
    func sendDeprecatedForms()
}

struct LegacyCalls: LegacyCalling {
    /// v3's deprecated `[String: String]` forms (deprecated here too, so calling them raises
    /// no warning), from synchronous code as v3 apps call them.
    @available(*, deprecated)
    func sendDeprecatedForms() {
        let strings: [String: String] = ["legacy": "yes"]
        Telemetry.signal("Legacy.signal", parameters: strings, floatValue: nil, customUserID: nil)
        Telemetry.errorOccurred(id: "Legacy.error", category: nil, message: nil, parameters: strings)
        Telemetry.errorOccurred(
            identifiableError: V3IdentifiedError.quotaExceeded,
            category: .appState,
            parameters: strings
        )
        Telemetry.errorOccurred(
            identifiableError: V3IdentifiedError.quotaExceeded,
            category: .thrownException,
            message: "legacy",
            parameters: strings
        )
        Telemetry.acquiredUser(channel: "legacy", parameters: strings)
        Telemetry.leadStarted(leadID: "legacy", parameters: strings)
        Telemetry.leadConverted(leadID: "legacy", parameters: strings)
        Telemetry.onboardingCompleted(parameters: strings)
        Telemetry.coreFeatureUsed(featureName: "legacy", parameters: strings)
        Telemetry.referralSent(parameters: strings)
        Telemetry.userRatingSubmitted(rating: 5, parameters: strings)
        Telemetry.paywallShown(reason: "legacy", parameters: strings)
        Telemetry.navigationPathChanged(from: "legacy", to: "legacy/2")
        Telemetry.navigationPathChanged(to: "legacy/3")
        Telemetry.startDurationSignal("Legacy.duration", parameters: strings, includeBackgroundTime: true)
        Telemetry.stopAndSendDurationSignal("Legacy.duration", parameters: strings, floatValue: nil, customUserID: nil)
        Telemetry.startDurationSignal("Legacy.cancelled")
        Telemetry.cancelDurationSignal("Legacy.cancelled")
    }

}

extension V3App {
    /// Sessions, users, test mode, opt-out and the value types, read back.
    static func observe(storage: V3DictionaryStorage) async -> V3Observations {
        var seen = V3Observations()
        seen.sessionID = await Telemetry.sessionID
        seen.newSessionID = await Telemetry.newSession()
        seen.isTestMode = await Telemetry.isTestMode()
        await Telemetry.setUserIdentifier("v3-user@example.com")
        if let client = Telemetry.client,
            let sessions = client.processor(conformingTo: (any SessionManaging).self),
            let users = client.processor(conformingTo: (any UserIdentifierManaging).self),
            let testMode = client.processor(conformingTo: (any TestModeProviding).self)
        {
            seen.capabilitySessionID = await sessions.currentSessionID()
            seen.userIdentifier = await users.currentUserIdentifier()
            _ = await testMode.isTestMode()
            let tracker: any DurationTracking = client.durations
            await tracker.startDuration("Tracked", parameters: [:], includeBackgroundTime: true)
            seen.durationResultSeconds = await tracker.stopDuration("Tracked")?.durationInSeconds
            await tracker.cancelDuration("Tracked")
        }

        var parameters = EventParameters()
        parameters["plan"] = "pro"
        parameters[DefaultParams.Referral.kind] = "link"
        parameters.merge(EventParameters(["seats": PayloadValue.int(3)]))
        parameters.merge(["region": "EU"])
        _ = (parameters["plan"], parameters[DefaultParams.Referral.kind], parameters.isEmpty, parameters.keys)
        for (key, value) in parameters { _ = (key, value.payloadValue) }
        seen.parameterCount = parameters.count
        seen.mergedPayload = parameters.payloadDictionary

        let input = EventInput(
            "Manual",
            parameters: ["n": 1],
            floatValue: nil,
            customUserID: nil,
            skipsReservedPrefixValidation: false
        )
        let finalizer = EventFinalizer(
            configuration: configuration(apiBaseURL: URL(string: "https://nom.telemetrydeck.com")!)
        )
        var context = EventContext()
        context.sessionID = UUID()
        context.userIdentifier = "u"
        context.isTestMode = false
        _ = context.metadata
        let pipeline = ProcessorPipeline(
            processors: [V3ScreenProcessor()],
            finalizer: finalizer,
            logger: DefaultLogger(minimumLevel: .info)
        )
        _ = try? await pipeline.process(input, context: context)
        let event = finalizer.finalize(input, context: context)
        _ = Event(
            appID: event.appID,
            type: event.type,
            clientUser: event.clientUser,
            sessionID: event.sessionID,
            receivedAt: event.receivedAt,
            payload: event.payload,
            floatValue: event.floatValue,
            isTestMode: false
        )
        let literals: [PayloadValue] = ["text", 1, 1.5, true]
        _ = literals.map(\.description)

        await Telemetry.flush()  // opting out discards what is still queued
        await Telemetry.setAnalyticsDisabled(true)
        seen.analyticsDisabledAfterOptOut = await Telemetry.isAnalyticsDisabled
        await Telemetry.setAnalyticsDisabled(false)
        seen.storageKeys = await storage.keys
        await Telemetry.flush()
        return seen
    }
}
