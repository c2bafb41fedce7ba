import Foundation
import TelemetryKit
import TelemetryKitComposable
import TelemetryKitSupport

/// The smallest reducer-based architecture: what a TCA `Reducer` or any
/// `reduce(into:action:)` store gives an app, written here because the
/// composable-architecture package is not a dependency.
protocol TestReducer {
    associatedtype State
    associatedtype Action
    func reduce(into state: inout State, action: Action)
}

/// Holds the state and runs actions through the reducer, like a store.
final class TestStore<Reducer: TestReducer> {
    private(set) var state: Reducer.State
    let reducer: Reducer

    init(initialState: Reducer.State, reducer: Reducer) {
        self.state = initialState
        self.reducer = reducer
    }

    func send(_ action: Reducer.Action) {
        reducer.reduce(into: &state, action: action)
    }
}

/// The spec's feature: a button whose tap shows a message and is reported as `ButtonTapped`.
struct ButtonFeature: TestReducer {
    struct State: Equatable {
        var message = ""
        var downloads = 0
        var tab = "home"
        var userID: String?
    }

    enum Action {
        case buttonTapped
        case downloadFinished(bytes: Int)
        case downloadFailed(DownloadError)
        case tabSelected(String)
        case signedIn(userID: String, plan: String)
    }

    struct DownloadError: LocalizedError, Equatable {
        var status: Int
        var errorDescription: String? { "download failed with status \(status)" }
    }

    /// All of the feature's analytics, away from the feature code.
    static let analytics = AnalyticsReducer<State, Action> { state, action in
        switch action {
        case .buttonTapped:
            return .event(name: "ButtonTapped")
        case .downloadFinished(let bytes):
            return .event(
                name: "DownloadFinished",
                properties: ["bytes": "\(bytes)", "number": "\(state.downloads + 1)"]
            )
        case .downloadFailed(let error):
            return .error(error)
        case .tabSelected, .signedIn:
            return nil
        }
    }

    static let signInAnalytics = MultipleAnalyticsReducer<State, Action> { _, action in
        guard case let .signedIn(userID, plan) = action else { return [] }
        return [.userId(userID), .userProperty(name: "plan", value: plan), .event(name: "SignedIn")]
    }

    static let tabAnalytics = OnChangeAnalyticsReducer<State, String>(of: \.tab) { _, tab in
        .screen(name: tab)
    }

    let analyticsClient: AnalyticsClient

    func reduce(into state: inout State, action: Action) {
        Self.analytics.reduce(into: state, action: action, client: analyticsClient)
        Self.signInAnalytics.reduce(into: state, action: action, client: analyticsClient)
        Self.tabAnalytics.reduce(into: &state, client: analyticsClient) { state in
            Self.core(into: &state, action: action)
        }
    }

    /// The feature code: no analytics in here.
    static func core(into state: inout State, action: Action) {
        switch action {
        case .buttonTapped:
            state.message = "Button tapped!"
        case .downloadFinished:
            state.downloads += 1
        case .downloadFailed:
            state.message = "Download failed"
        case .tabSelected(let tab):
            state.tab = tab
        case .signedIn(let userID, _):
            state.userID = userID
        }
    }
}

/// A client that keeps everything it is sent.
final class AnalyticsRecorder: Sendable {
    private let storage = Locked([AnalyticsData]())

    var client: AnalyticsClient {
        AnalyticsClient { data in self.storage.withLock { $0.append(data) } }
    }

    var received: [AnalyticsData] { storage.withLock { $0 } }
}

/// Keeps lines written by `AnalyticsClient.consoleLogger(write:)`.
final class LineRecorder: Sendable {
    private let storage = Locked([String]())

    func write(_ line: String) { storage.withLock { $0.append(line) } }

    var lines: [String] { storage.withLock { $0 } }
}
