import Foundation
import TelemetryKit
import TelemetryKitComposable
import TelemetryKitTesting
import Testing

/// `AnalyticsClient.telemetry(_:)`: the spec's button-tap example end to end, and the mapping
/// of each kind of analytics into the pipeline.
struct TelemetryAnalyticsClientTests {
    private struct ExportError: LocalizedError {
        var format: String
        var errorDescription: String? { "cannot export as \(format)" }
    }

    @Test func buttonTapReachesTheTransmitter() async {
        let harness = await TestHarness.make()
        let store = TestStore(
            initialState: ButtonFeature.State(),
            reducer: ButtonFeature(analyticsClient: .telemetry(harness.client))
        )

        store.send(.buttonTapped)
        await harness.client.flush()

        let events = harness.spy.deliveredEvents
        #expect(events.map(\.type) == ["ButtonTapped"])
        #expect(events.first?.payload == [:])
        #expect(events.first?.appID == "TEST-APP")
        #expect(store.state.message == "Button tapped!")
    }

    @Test func mergedClientsBothReceiveTheButtonTap() async {
        let harness = await TestHarness.make()
        let console = LineRecorder()
        let store = TestStore(
            initialState: ButtonFeature.State(),
            reducer: ButtonFeature(
                analyticsClient: .merge(.consoleLogger(write: console.write), .telemetry(harness.client))
            )
        )

        store.send(.buttonTapped)
        await harness.client.flush()

        #expect(console.lines == ["[Analytics] ✅ event(ButtonTapped)"])
        #expect(harness.spy.deliveredEvents.map(\.type) == ["ButtonTapped"])
    }

    @Test func eventPropertiesBecomeParameters() async {
        let harness = await TestHarness.make()
        let store = TestStore(
            initialState: ButtonFeature.State(),
            reducer: ButtonFeature(analyticsClient: .telemetry(harness.client))
        )

        store.send(.downloadFinished(bytes: 4096))
        await harness.client.flush()

        let event = harness.spy.deliveredEvents.first
        #expect(event?.type == "DownloadFinished")
        #expect(event?.payload == ["bytes": .string("4096"), "number": .string("1")])
    }

    @Test func screensBecomeNavigationEventsFromThePreviousScreen() async {
        let harness = await TestHarness.make()
        let analytics = AnalyticsClient.telemetry(harness.client)

        analytics.send(.screen(name: "Home"))
        analytics.send(.screen(name: "Settings"))
        await harness.client.flush()

        let events = harness.spy.deliveredEvents
        #expect(events.map(\.type) == ["TelemetryDeck.Navigation.pathChanged", "TelemetryDeck.Navigation.pathChanged"])
        #expect(
            events.map(\.payload) == [
                [
                    "TelemetryDeck.Navigation.schemaVersion": .string("1"),
                    "TelemetryDeck.Navigation.identifier": .string(" -> Home"),
                    "TelemetryDeck.Navigation.sourcePath": .string(""),
                    "TelemetryDeck.Navigation.destinationPath": .string("Home"),
                ],
                [
                    "TelemetryDeck.Navigation.schemaVersion": .string("1"),
                    "TelemetryDeck.Navigation.identifier": .string("Home -> Settings"),
                    "TelemetryDeck.Navigation.sourcePath": .string("Home"),
                    "TelemetryDeck.Navigation.destinationPath": .string("Settings"),
                ],
            ]
        )
    }

    @Test func userIdAttributesLaterEvents() async {
        let harness = await TestHarness.make(salt: "pepper")
        let analytics = AnalyticsClient.telemetry(harness.client)

        analytics.send("Anonymous")
        await harness.client.waitUntilProcessed()
        analytics.send(.userId("user-42"))
        analytics.send("Identified")
        await harness.client.flush()

        let finalizer = EventFinalizer(appID: "TEST-APP", salt: "pepper")
        let events = harness.spy.deliveredEvents
        #expect(events.map(\.type) == ["Anonymous", "Identified"])
        #expect(events.map(\.clientUser) == [finalizer.clientUser(for: nil), finalizer.clientUser(for: "user-42")])
    }

    @Test func userPropertiesAreCarriedByLaterEvents() async {
        let harness = await TestHarness.make()
        let analytics = AnalyticsClient.telemetry(harness.client)

        analytics.send("Before")
        await harness.client.waitUntilProcessed()
        analytics.send(.userProperty(name: "plan", value: "pro"))
        analytics.send("After")
        analytics.send(.event("Explicit", properties: ["plan": "trial"]))  // event properties win
        await harness.client.flush()

        let events = harness.spy.deliveredEvents
        #expect(events.map(\.type) == ["Before", "After", "Explicit"])
        #expect(events.map { $0.payload["plan"] } == [nil, .string("pro"), .string("trial")])
    }

    @Test func errorsBecomeErrorEventsWithTypeAndDescription() async {
        let harness = await TestHarness.make()
        let analytics = AnalyticsClient.telemetry(harness.client)

        analytics.send(.error(ExportError(format: "PDF")))
        await harness.client.flush()

        let event = harness.spy.deliveredEvents.first
        #expect(event?.type == "TelemetryDeck.Error.occurred")
        #expect(
            event?.payload == [
                "TelemetryDeck.Error.id": .string("ExportError"),
                "TelemetryDeck.Error.category": .string("thrown-exception"),
                "TelemetryDeck.Error.message": .string("cannot export as PDF"),
            ]
        )
    }

    @Test func reducerErrorActionReachesTheTransmitter() async {
        let harness = await TestHarness.make()
        let store = TestStore(
            initialState: ButtonFeature.State(),
            reducer: ButtonFeature(analyticsClient: .telemetry(harness.client))
        )

        store.send(.downloadFailed(.init(status: 503)))
        store.send(.signedIn(userID: "u-1", plan: "free"))
        await harness.client.flush()

        let events = harness.spy.deliveredEvents
        #expect(events.map(\.type) == ["TelemetryDeck.Error.occurred", "SignedIn"])
        #expect(events.first?.payload["TelemetryDeck.Error.message"] == .string("download failed with status 503"))
        #expect(events.last?.payload == ["plan": .string("free")])
        #expect(events.last?.clientUser == EventFinalizer(appID: "TEST-APP").clientUser(for: "u-1"))
    }
}
