#if Dependencies
import Dependencies
import IssueReporting
import TelemetryKit
import Testing

@testable import TelemetryKitComposable

/// The feature of `ButtonFeature`, reading its client from `@Dependency(\.analyticsClient)`.
private struct DependencyButtonFeature: TestReducer {
    typealias State = ButtonFeature.State
    typealias Action = ButtonFeature.Action

    func reduce(into state: inout State, action: Action) {
        ButtonFeature.analytics.reduce(into: state, action: action)
        ButtonFeature.signInAnalytics.reduce(into: state, action: action)
        ButtonFeature.tabAnalytics.reduce(into: &state) { state in
            ButtonFeature.core(into: &state, action: action)
        }
    }
}

struct AnalyticsClientDependencyTests {
    @Test func withDependenciesRoutesToTheOverride() {
        let recorder = AnalyticsRecorder()
        withDependencies {
            $0.analyticsClient = recorder.client
        } operation: {
            let store = TestStore(initialState: ButtonFeature.State(), reducer: DependencyButtonFeature())
            store.send(.buttonTapped)
            store.send(.signedIn(userID: "u-7", plan: "free"))
            store.send(.tabSelected("settings"))
        }
        #expect(
            recorder.received == [
                .event(name: "ButtonTapped"),
                .userId("u-7"), .userProperty(name: "plan", value: "free"), .event(name: "SignedIn"),
                .screen(name: "settings"),
            ]
        )
    }

    @Test func dependencyPropertyWrapperReadsTheOverride() {
        let recorder = AnalyticsRecorder()
        withDependencies {
            $0.analyticsClient = .merge(recorder.client, recorder.client)
        } operation: {
            @Dependency(\.analyticsClient) var analyticsClient
            analyticsClient.send(.screen(name: "Home"))
        }
        #expect(recorder.received == [.screen(name: "Home"), .screen(name: "Home")])
    }

    /// The spec's test: `$0.analyticsClient.expect(.event("ButtonTapped"))`.
    @Test func specExpectationPasses() {
        withDependencies {
            $0.analyticsClient.expect(.event("ButtonTapped"))
        } operation: {
            let store = TestStore(initialState: ButtonFeature.State(), reducer: DependencyButtonFeature())
            store.send(.buttonTapped)
            #expect(store.state.message == "Button tapped!")
        }
    }

    @Test func specExpectationFailsWhenTheEventIsMissing() {
        withKnownIssue {
            withDependencies {
                $0.analyticsClient.expect(.event("ButtonTapped"))
            } operation: {
                let store = TestStore(initialState: ButtonFeature.State(), reducer: DependencyButtonFeature())
                store.send(.tabSelected("home"))  // no analytics
            }
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("Expected analytics were not sent: event(ButtonTapped)") }
        }
    }

    @Test func testValueFailsOnUse() {
        withKnownIssue {
            @Dependency(\.analyticsClient) var analyticsClient
            analyticsClient.send("ButtonTapped")
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("Unexpected analytics sent: event(ButtonTapped)") }
        }
    }

    @Test func liveValueDropsDataWithOneWarning() {
        let reporter = AnalyticsExpectationTests.CapturingReporter()
        withIssueReporters([reporter]) {
            let unconfigured = AnalyticsClient.unconfigured()
            unconfigured.send("First")
            unconfigured.send("Second")
        }
        #expect(reporter.issues.count == 1)
        #expect(reporter.issues.first?.hasPrefix("warning: AnalyticsClient is not configured: event(First)") == true)
    }
}
#endif
