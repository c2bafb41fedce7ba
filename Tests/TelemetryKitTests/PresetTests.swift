import Foundation
import TelemetryKit
import TelemetryKitTesting
import Testing

struct PresetTests {
    /// Sends through `send`, flushes, and returns the delivered events.
    private func deliver(_ send: (TelemetryClient) -> Void) async -> [Event] {
        let harness = await TestHarness.make()
        send(harness.client)
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
        let identifiers = events.map { $0.payload[TelemetryPresets.Navigation.identifier] }
        #expect(
            identifiers == [
                .string(" -> home"), .string("home -> home/detail"), .string("deeplink -> cart"),
                .string("cart -> checkout"),
            ]
        )
        #expect(events.first?.payload[TelemetryPresets.Navigation.sourcePath] == .string(""))
    }

    @Test(arguments: [
        (ErrorCategory.thrownException, "thrown-exception"),
        (.userInput, "user-input"),
        (.appState, "app-state"),
    ])
    func errorOccurredWithEachCategory(category: ErrorCategory, rawValue: String) async throws {
        let events = await deliver {
            $0.errorOccurred(id: "ImportFailed", category: category, message: "empty file", parameters: ["size": 0])
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

    @Test func errorOccurredWithOnlyAnID() async throws {
        let events = await deliver { $0.errorOccurred(id: "Timeout", floatValue: 30) }
        let event = try #require(events.first)
        #expect(event.payload == ["TelemetryDeck.Error.id": .string("Timeout")])
        #expect(event.floatValue == 30)
    }

    private enum ImportError: Error {
        case badHeader(line: Int)
        case empty
    }

    private struct DiskFull: Error {}

    private struct QuotaExceeded: IdentifiableError {
        let used: Int
        var id: String { "Quota.exceeded" }
    }

    @Test func errorIDsLeaveValuesOut() {
        #expect(TelemetryPresets.errorID(of: ImportError.badHeader(line: 3)) == "ImportError.badHeader")
        #expect(TelemetryPresets.errorID(of: ImportError.empty) == "ImportError.empty")
        #expect(TelemetryPresets.errorID(of: DiskFull()) == "DiskFull")
        #expect(TelemetryPresets.errorID(of: QuotaExceeded(used: 12)) == "Quota.exceeded")
    }

    @Test func errorOccurredFromASwiftError() async throws {
        let events = await deliver { client in
            client.errorOccurred(ImportError.badHeader(line: 3))
            client.errorOccurred(DiskFull(), category: .appState, message: "disk full")
        }
        #expect(events.count == 2)
        #expect(events.map(\.type) == ["TelemetryDeck.Error.occurred", "TelemetryDeck.Error.occurred"])
        #expect(events[0].payload[TelemetryPresets.Errors.id] == .string("ImportError.badHeader"))
        #expect(events[0].payload[TelemetryPresets.Errors.category] == .string("thrown-exception"))
        #expect(events[0].payload[TelemetryPresets.Errors.message] == .string("badHeader(line: 3)"))
        #expect(
            events[1].payload == [
                "TelemetryDeck.Error.id": .string("DiskFull"),
                "TelemetryDeck.Error.category": .string("app-state"),
                "TelemetryDeck.Error.message": .string("disk full"),
            ]
        )
    }

    @Test func acquisitionAndActivation() async {
        let events = await deliver { client in
            client.acquiredUser(channel: "newsletter")
            client.onboardingCompleted()
            client.coreFeatureUsed(featureName: "Export PDF", parameters: ["pages": 12])
        }
        #expect(
            events.map(\.type) == [
                "TelemetryDeck.Acquisition.userAcquired",
                "TelemetryDeck.Activation.onboardingCompleted",
                "TelemetryDeck.Activation.coreFeatureUsed",
            ]
        )
        #expect(
            events.map(\.payload) == [
                ["TelemetryDeck.Acquisition.channel": .string("newsletter")],
                [:],
                ["TelemetryDeck.Activation.featureName": .string("Export PDF"), "pages": .int(12)],
            ]
        )
    }

    @Test func paywallShown() async throws {
        let events = await deliver { $0.paywallShown(reason: "export-limit") }
        let event = try #require(events.first)
        #expect(event.type == "TelemetryDeck.Purchase.paywallShown")
        #expect(event.payload == ["TelemetryDeck.Purchase.reason": .string("export-limit")])
    }

    @Test func purchaseCompleted() async throws {
        let events = await deliver { client in
            client.purchaseCompleted(
                productID: "pro.yearly",
                price: 29.99,
                currencyCode: "EUR",
                countryCode: "DEU",
                isSubscription: true,
                offerID: "intro"
            )
            client.purchaseCompleted(productID: "coins.100", price: 0.99, isSubscription: false)
        }
        #expect(events.map(\.type) == ["TelemetryDeck.Purchase.completed", "TelemetryDeck.Purchase.completed"])
        #expect(events.map(\.floatValue) == [29.99, 0.99])
        #expect(
            events[0].payload == [
                "TelemetryDeck.Purchase.productID": .string("pro.yearly"),
                "TelemetryDeck.Purchase.type": .string("subscription"),
                "TelemetryDeck.Purchase.currencyCode": .string("EUR"),
                "TelemetryDeck.Purchase.countryCode": .string("DEU"),
                "TelemetryDeck.Purchase.offerID": .string("intro"),
            ]
        )
        #expect(
            events[1].payload == [
                "TelemetryDeck.Purchase.productID": .string("coins.100"),
                "TelemetryDeck.Purchase.type": .string("one-time-purchase"),
            ]
        )
    }

    @Test(arguments: [0, 7, 10])
    func ratingInsideTheRangeIsSent(rating: Int) async throws {
        let harness = await TestHarness.make()
        harness.client.userRatingSubmitted(rating: rating, comment: "Nice")
        await harness.client.flush()
        let event = try #require(harness.spy.deliveredEvents.first)
        #expect(event.type == "TelemetryDeck.UserInfo.userRatingSubmitted")
        #expect(
            event.payload == [
                "TelemetryDeck.UserInfo.rating": .int(Int64(rating)),
                "TelemetryDeck.UserInfo.comment": .string("Nice"),
            ]
        )
        #expect(harness.logger.warnings.isEmpty)
    }

    @Test(arguments: [-1, 11, 100])
    func ratingOutsideTheRangeIsNotSentAndWarns(rating: Int) async {
        let harness = await TestHarness.make()
        harness.client.userRatingSubmitted(rating: rating)
        await harness.client.flush()
        #expect(harness.spy.deliveredEvents.isEmpty)
        #expect(await harness.client.stats.processed == 0)
        #expect(
            harness.logger.warnings == [
                "userRatingSubmitted: rating \(rating) is outside 0...10; the event was not sent"
            ]
        )
        #expect(harness.logger.entries.map(\.eventName) == ["TelemetryDeck.UserInfo.userRatingSubmitted"])
    }

    @Test func ratingWithoutCommentHasNoCommentKey() async throws {
        let events = await deliver { $0.userRatingSubmitted(rating: 4) }
        #expect(events.first?.payload == ["TelemetryDeck.UserInfo.rating": .int(4)])
    }

    @Test func presetKeysWinOverCallerParameters() async throws {
        let events = await deliver {
            $0.paywallShown(reason: "limit", parameters: ["TelemetryDeck.Purchase.reason": "spoofed", "plan": "free"])
        }
        #expect(
            events.first?.payload == [
                "TelemetryDeck.Purchase.reason": .string("limit"),
                "plan": .string("free"),
            ]
        )
    }

    @Test func presetsAreSDKInternalButDurationsAreNot() throws {
        let presets = [
            TelemetryPresets.navigationPathChanged(from: "a", to: "b"),
            TelemetryPresets.errorOccurred(id: "x"),
            TelemetryPresets.acquiredUser(channel: "ads"),
            TelemetryPresets.onboardingCompleted(),
            TelemetryPresets.coreFeatureUsed(featureName: "f"),
            try TelemetryPresets.userRatingSubmitted(rating: 5),
            TelemetryPresets.paywallShown(reason: "r"),
            TelemetryPresets.purchaseCompleted(productID: "p", price: 1, isSubscription: false),
        ]
        #expect(presets.filter { !$0.skipsReservedPrefixValidation }.isEmpty)
        #expect(TelemetryPresets.durationEvent("Load", seconds: 1).skipsReservedPrefixValidation == false)
        #expect(throws: PresetError.ratingOutOfRange(11)) {
            try TelemetryPresets.userRatingSubmitted(rating: 11)
        }
    }

    @Test func customUserIDIsPassedOn() {
        #expect(TelemetryPresets.onboardingCompleted(customUserID: "user-7").customUserID == "user-7")
        #expect(TelemetryPresets.navigationPathChanged(from: "a", to: "b", customUserID: "u").customUserID == "u")
        #expect(TelemetryPresets.errorOccurred(id: "x").customUserID == nil)
    }
}
