import Foundation
import TelemetryKit
import TelemetryKitAppInfo
import TelemetryKitCalendar
import TelemetryKitDevice
import TelemetryKitLocale
import TelemetryKitPresets
import TelemetryKitSessionTracking
import TelemetryKitTesting
import Testing

/// TelemetryDeck v3's presets: names, keys, values and merge rules, checked on the events a
/// client delivers.
struct PresetTests {
    /// Sends through `send`, flushes, and returns the delivered events.
    private func deliver(_ send: (TelemetryClient) throws -> Void) async rethrows -> [Event] {
        let harness = await TestHarness.make()
        try send(harness.client)
        await harness.client.flush()
        return harness.spy.deliveredEvents
    }

    @Test func navigationFromTo() async throws {
        let events = await deliver { $0.navigationPathChanged(from: "settings", to: "settings/privacy") }
        let event = try #require(events.first)
        #expect(event.type == "TelemetryDeck.Navigation.pathChanged")
        #expect(
            event.payload == [
                "TelemetryDeck.Navigation.schemaVersion": .string("1"),
                "TelemetryDeck.Navigation.identifier": .string("settings -> settings/privacy"),
                "TelemetryDeck.Navigation.sourcePath": .string("settings"),
                "TelemetryDeck.Navigation.destinationPath": .string("settings/privacy"),
            ]
        )
    }

    @Test func navigationToRemembersThePreviousDestination() async {
        let events = await deliver { client in
            client.navigationPathChanged(to: "home")
            client.navigationPathChanged(to: "home/detail")
            client.navigationPathChanged(from: "deeplink", to: "cart")
            client.navigationPathChanged(to: "checkout")
        }
        #expect(
            events.map { $0.payload["TelemetryDeck.Navigation.identifier"] } == [
                .string(" -> home"), .string("home -> home/detail"), .string("deeplink -> cart"),
                .string("cart -> checkout"),
            ]
        )
    }

    @Test(arguments: [
        (ErrorCategory.thrownException, "thrown-exception"),
        (.userInput, "user-input"),
        (.appState, "app-state"),
    ])
    func errorOccurredWithEachCategory(category: ErrorCategory, rawValue: String) async throws {
        #expect(category.rawValue == rawValue)
        let events = await deliver {
            $0.event(
                .errorOccurred(id: "ImportFailed", category: category, message: "empty file", parameters: ["size": 0])
            )
        }
        let event = try #require(events.first)
        #expect(event.type == "TelemetryDeck.Error.occurred")
        #expect(
            event.payload == [
                "TelemetryDeck.Error.id": .string("ImportFailed"),
                "TelemetryDeck.Error.category": .string(rawValue),
                "TelemetryDeck.Error.message": .string("empty file"),
                "size": .int(0),
            ]
        )
    }

    private enum ImportError: LocalizedError {
        case badLine(Int)
        var errorDescription: String? {
            switch self {
            case .badLine(let line): return "bad line \(line)"
            }
        }
    }

    /// Describes itself only through `CustomStringConvertible`, which v3's message ignores.
    private struct DescribedOnlyError: Error, CustomStringConvertible {
        var description: String { "secret path /Users/me/file.txt" }
    }

    private struct QuotaError: IdentifiableError {
        var id: String { "Quota.exceeded" }
    }

    @Test func identifiableErrorsKeepTheirIDAndDescription() throws {
        let wrapped = EventInput.errorOccurred(identifiableError: ImportError.badLine(3).with(id: "Import.badLine"))
        #expect(wrapped.parameters.values["TelemetryDeck.Error.id"] == .string("Import.badLine"))
        #expect(wrapped.parameters.values["TelemetryDeck.Error.message"] == .string("bad line 3"))
        #expect(wrapped.parameters.values["TelemetryDeck.Error.category"] == .string("thrown-exception"))

        let derived = AnyIdentifiableError(ImportError.badLine(7))
        #expect(derived.id == "ImportError.badLine")
        #expect(AnyIdentifiableError(QuotaError()).id == "Quota.exceeded")

        let explicit = EventInput.errorOccurred(
            identifiableError: QuotaError(),
            category: .appState,
            message: "over the limit"
        )
        #expect(explicit.parameters.values["TelemetryDeck.Error.id"] == .string("Quota.exceeded"))
        #expect(explicit.parameters.values["TelemetryDeck.Error.message"] == .string("over the limit"))
        #expect(explicit.parameters.values["TelemetryDeck.Error.category"] == .string("app-state"))
    }

    /// The message is the error's `localizedDescription`, as in v3: an `NSError`'s localized
    /// description, not the `Error Domain=… UserInfo=…` dump; never `String(describing:)`.
    @Test func errorMessagesAreTheLocalizedDescription() throws {
        let nsError = NSError(domain: "test", code: 42, userInfo: [NSLocalizedDescriptionKey: "Test error"])
        let wrapped = AnyIdentifiableError(id: "Test.failed", error: nsError)
        #expect(wrapped.errorDescription == "Test error")
        #expect(wrapped.localizedDescription == "Test error")
        let event = EventInput.errorOccurred(identifiableError: wrapped)
        #expect(event.parameters["TelemetryDeck.Error.message"] as? String == "Test error")

        let described = EventInput.errorOccurred(identifiableError: DescribedOnlyError().with(id: "Described"))
        let message = try #require(described.parameters["TelemetryDeck.Error.message"] as? String)
        #expect(message == DescribedOnlyError().localizedDescription)
        #expect(!message.contains("/Users/me"))
    }

    /// Every stateless preset: its v3 name and its own keys.
    @Test func presetNamesAndKeysAreV3s() throws {
        let cases: [(EventInput, String, [String: PayloadValue], Double?)] = [
            (
                .acquiredUser(channel: "ads"), "TelemetryDeck.Acquisition.userAcquired",
                ["TelemetryDeck.Acquisition.channel": "ads"], nil
            ),
            (
                .leadStarted(leadID: "L1"), "TelemetryDeck.Acquisition.leadStarted",
                ["TelemetryDeck.Acquisition.leadID": "L1"], nil
            ),
            (
                .leadConverted(leadID: "L1"), "TelemetryDeck.Acquisition.leadConverted",
                ["TelemetryDeck.Acquisition.leadID": "L1"], nil
            ),
            (.onboardingCompleted(), "TelemetryDeck.Activation.onboardingCompleted", [:], nil),
            (
                .coreFeatureUsed(featureName: "export"), "TelemetryDeck.Activation.coreFeatureUsed",
                ["TelemetryDeck.Activation.featureName": "export"], nil
            ),
            (
                .referralSent(receiversCount: 3, kind: "code"), "TelemetryDeck.Referral.sent",
                ["TelemetryDeck.Referral.receiversCount": 3, "TelemetryDeck.Referral.kind": "code"], nil
            ),
            (
                .referralSent(), "TelemetryDeck.Referral.sent",
                ["TelemetryDeck.Referral.receiversCount": 1], nil
            ),
            (
                try .userRatingSubmitted(rating: 9, comment: "great"), "TelemetryDeck.Referral.userRatingSubmitted",
                ["TelemetryDeck.Referral.ratingValue": 9, "TelemetryDeck.Referral.ratingComment": "great"], nil
            ),
            (
                try .userRatingSubmitted(rating: 0, comment: ""), "TelemetryDeck.Referral.userRatingSubmitted",
                ["TelemetryDeck.Referral.ratingValue": 0], nil
            ),
            (
                .paywallShown(reason: "onboarding"), "TelemetryDeck.Revenue.paywallShown",
                ["TelemetryDeck.Revenue.paywallShowReason": "onboarding"], nil
            ),
            (
                .purchaseCompleted(
                    productID: "pro.yearly",
                    price: 10,
                    currencyCode: "EUR",
                    countryCode: "DE",
                    isSubscription: true
                ),
                "TelemetryDeck.Purchase.completed",
                [
                    "TelemetryDeck.Purchase.productID": "pro.yearly", "TelemetryDeck.Purchase.type": "subscription",
                    "TelemetryDeck.Purchase.currencyCode": "EUR", "TelemetryDeck.Purchase.countryCode": "DE",
                ],
                11.6
            ),
            (
                .purchaseCompleted(productID: "coins", price: 4.99, isSubscription: false),
                "TelemetryDeck.Purchase.completed",
                [
                    "TelemetryDeck.Purchase.productID": "coins", "TelemetryDeck.Purchase.type": "one-time-purchase",
                    "TelemetryDeck.Purchase.currencyCode": "USD",
                ],
                4.99
            ),
            (
                .freeTrialStarted(productID: "pro.monthly"), "TelemetryDeck.Purchase.freeTrialStarted",
                ["TelemetryDeck.Purchase.productID": "pro.monthly", "TelemetryDeck.Purchase.type": "subscription"],
                nil
            ),
        ]
        for (input, name, payload, floatValue) in cases {
            #expect(input.name == name)
            #expect(input.parameters.payloadDictionary == payload, "\(name)")
            #expect(input.floatValue == floatValue, "\(name)")
            #expect(input.skipsReservedPrefixValidation, "\(name)")
        }
    }

    @Test func aCallersParameterWinsOverThePresetsOwnOnAClash() {
        let input = EventInput.leadStarted(
            leadID: "from-preset",
            parameters: ["TelemetryDeck.Acquisition.leadID": "from-caller", "campaign": "spring"]
        )
        #expect(
            input.parameters.payloadDictionary == [
                "TelemetryDeck.Acquisition.leadID": "from-caller", "campaign": "spring",
            ]
        )
    }

    @Test(arguments: [-1, 11, 100])
    func aRatingOutsideZeroToTenIsRefused(rating: Int) {
        #expect(throws: PresetError.ratingOutOfRange(rating)) {
            try EventInput.userRatingSubmitted(rating: rating)
        }
    }

    @Test func pricesConvertToUSDWithTheGivenRates() {
        #expect(PurchaseCurrency.usd(100, currencyCode: "JPY", rates: ["JPY": 0.0066]) == 0.66)
        #expect(PurchaseCurrency.usd(5, currencyCode: "eur", rates: ["EUR": 2]) == 10)
        // No rate: sent unconverted, as v3 does.
        #expect(PurchaseCurrency.usd(7.5, currencyCode: "XYZ", rates: [:]) == 7.5)
    }

    @Test func defaultEventsAreV3sNames() {
        let names: [String] =
            DefaultEvents.Session.allCases.map(\.rawValue) + DefaultEvents.Navigation.allCases.map(\.rawValue)
            + DefaultEvents.Acquisition.allCases.map(\.rawValue) + DefaultEvents.Activation.allCases.map(\.rawValue)
            + DefaultEvents.Referral.allCases.map(\.rawValue) + DefaultEvents.Revenue.allCases.map(\.rawValue)
            + DefaultEvents.Purchase.allCases.map(\.rawValue) + DefaultEvents.Error.allCases.map(\.rawValue)
        #expect(
            names == [
                "TelemetryDeck.Session.started", "TelemetryDeck.Navigation.pathChanged",
                "TelemetryDeck.Acquisition.userAcquired", "TelemetryDeck.Acquisition.leadStarted",
                "TelemetryDeck.Acquisition.leadConverted", "TelemetryDeck.Acquisition.newInstallDetected",
                "TelemetryDeck.Activation.onboardingCompleted", "TelemetryDeck.Activation.coreFeatureUsed",
                "TelemetryDeck.Referral.sent", "TelemetryDeck.Referral.userRatingSubmitted",
                "TelemetryDeck.Revenue.paywallShown", "TelemetryDeck.Purchase.completed",
                "TelemetryDeck.Purchase.freeTrialStarted", "TelemetryDeck.Purchase.convertedFromTrial",
                "TelemetryDeck.Error.occurred",
            ]
        )
    }

    /// The processors write only keys that `DefaultParams` names, so v3 code reading a key
    /// through `DefaultParams` finds what the SDK sends.
    @Test func everyKeyTheProcessorsWriteIsInDefaultParams() async throws {
        let harness = await TestHarness.make(processors: [
            SessionTrackingProcessor(), DeviceProcessor(), AppInfoProcessor(), LocaleProcessor(), CalendarProcessor(),
        ])
        harness.client.event("Screen.shown")
        await harness.client.flush()
        let event = try #require(harness.spy.deliveredEvents.last { $0.type == "Screen.shown" })
        let known = Set(Self.allDefaultParams)
        let written = event.payload.keys.filter { $0.hasPrefix("TelemetryDeck.") }
        #expect(written.count >= 30)
        #expect(Set(written).subtracting(known).sorted() == [])
    }

    static var allDefaultParams: [String] {
        DefaultParams.Device.allCases.map(\.rawValue) + DefaultParams.RunContext.allCases.map(\.rawValue)
            + DefaultParams.AppInfo.allCases.map(\.rawValue) + DefaultParams.SDK.allCases.map(\.rawValue)
            + DefaultParams.UserPreference.allCases.map(\.rawValue)
            + DefaultParams.Accessibility.allCases.map(\.rawValue) + DefaultParams.Calendar.allCases.map(\.rawValue)
            + DefaultParams.Retention.allCases.map(\.rawValue) + DefaultParams.Acquisition.allCases.map(\.rawValue)
            + DefaultParams.Activation.allCases.map(\.rawValue) + DefaultParams.Referral.allCases.map(\.rawValue)
            + DefaultParams.Revenue.allCases.map(\.rawValue) + DefaultParams.Purchase.allCases.map(\.rawValue)
            + DefaultParams.Navigation.allCases.map(\.rawValue) + DefaultParams.Error.allCases.map(\.rawValue)
            + DefaultParams.Event.allCases.map(\.rawValue)
    }

    @Test func durationsReportTheirResultThroughTheCapability() async throws {
        let clock = ManualClock()
        let harness = await TestHarness.make(clock: clock)
        let tracker: any DurationTracking = harness.client.durations
        await tracker.startDuration("Export", parameters: ["format": "pdf"], includeBackgroundTime: false)
        clock.advance(by: 2.5)
        let result = try #require(await tracker.stopDuration("Export"))
        #expect(result.durationInSeconds == 2.5)
        #expect(result.startParameters == ["format": "pdf"])
        #expect(await tracker.stopDuration("Export") == nil)
    }
}
