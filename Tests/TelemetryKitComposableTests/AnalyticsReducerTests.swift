import TelemetryKitComposable
import Testing

struct AnalyticsReducerTests {
    @Test func buttonTapIsReportedAndTheFeatureStillRuns() {
        let recorder = AnalyticsRecorder()
        let store = TestStore(
            initialState: ButtonFeature.State(),
            reducer: ButtonFeature(analyticsClient: recorder.client)
        )

        store.send(.buttonTapped)

        #expect(recorder.received == [.event(name: "ButtonTapped")])
        #expect(store.state.message == "Button tapped!")
    }

    @Test func mappingSeesTheStateTheActionArrivedIn() {
        let recorder = AnalyticsRecorder()
        let store = TestStore(
            initialState: ButtonFeature.State(),
            reducer: ButtonFeature(analyticsClient: recorder.client)
        )

        store.send(.downloadFinished(bytes: 512))
        store.send(.downloadFinished(bytes: 2048))

        #expect(
            recorder.received == [
                .event(name: "DownloadFinished", properties: ["bytes": "512", "number": "1"]),
                .event(name: "DownloadFinished", properties: ["bytes": "2048", "number": "2"]),
            ]
        )
        #expect(store.state.downloads == 2)
    }

    @Test func nilMappingSendsNothing() {
        let reducer = AnalyticsReducer<Int, String> { _, action in action == "report" ? "Reported" : nil }
        let recorder = AnalyticsRecorder()

        reducer.reduce(into: 0, action: "ignore", client: recorder.client)
        #expect(recorder.received.isEmpty)
        #expect(reducer.analytics(for: 0, action: "ignore") == nil)

        reducer.reduce(into: 0, action: "report", client: recorder.client)
        #expect(recorder.received == ["Reported"])
    }

    @Test func errorsAreReportedAsErrorData() {
        let recorder = AnalyticsRecorder()
        let store = TestStore(
            initialState: ButtonFeature.State(),
            reducer: ButtonFeature(analyticsClient: recorder.client)
        )

        store.send(.downloadFailed(.init(status: 503)))

        #expect(recorder.received == [.error(ButtonFeature.DownloadError(status: 503))])
        #expect(recorder.received != [.error(ButtonFeature.DownloadError(status: 404))])
    }

    @Test func multipleAnalyticsAreSentInOrder() {
        let recorder = AnalyticsRecorder()
        let store = TestStore(
            initialState: ButtonFeature.State(),
            reducer: ButtonFeature(analyticsClient: recorder.client)
        )

        store.send(.signedIn(userID: "user-42", plan: "pro"))

        #expect(
            recorder.received == [
                .userId("user-42"), .userProperty(name: "plan", value: "pro"), .event(name: "SignedIn"),
            ]
        )
        #expect(
            ButtonFeature.signInAnalytics.analytics(for: store.state, action: .buttonTapped).isEmpty
        )
    }

    @Test func onChangeSendsOnlyWhenTheWatchedValueChanges() {
        let recorder = AnalyticsRecorder()
        let store = TestStore(
            initialState: ButtonFeature.State(),
            reducer: ButtonFeature(analyticsClient: recorder.client)
        )

        store.send(.tabSelected("home"))  // unchanged: nothing
        store.send(.tabSelected("settings"))
        store.send(.buttonTapped)  // another part of the state changes: nothing more
        store.send(.tabSelected("settings"))
        store.send(.tabSelected("profile"))

        #expect(
            recorder.received == [.screen(name: "settings"), .event(name: "ButtonTapped"), .screen(name: "profile")]
        )
    }

    @Test func onChangeComparesTwoStates() {
        let reducer = OnChangeAnalyticsReducer<[String], Int>(of: \.count) { old, new in
            .event(name: "CountChanged", properties: ["from": "\(old)", "to": "\(new)"])
        }
        let recorder = AnalyticsRecorder()

        reducer.reduce(from: ["a"], to: ["b"], client: recorder.client)
        reducer.reduce(from: ["a"], to: ["a", "b", "c"], client: recorder.client)

        #expect(recorder.received == [.event(name: "CountChanged", properties: ["from": "1", "to": "3"])])
    }

    @Test func onChangeReturnsTheBodysResult() {
        let reducer = OnChangeAnalyticsReducer<Int, Bool>(of: { $0 > 10 }) { _, isLarge in
            isLarge ? "BecameLarge" : nil
        }
        let recorder = AnalyticsRecorder()
        var state = 8

        let effect = reducer.reduce(into: &state, client: recorder.client) { state -> String in
            state += 5
            return "effect"
        }
        reducer.reduce(into: &state, client: recorder.client) { $0 -= 10 }  // back below: mapped to nil

        #expect(effect == "effect")
        #expect(state == 3)
        #expect(recorder.received == ["BecameLarge"])
    }
}
