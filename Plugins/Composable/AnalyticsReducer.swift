/// Maps a reducer's actions to analytics, and nothing else.
///
/// The mapping sees the state read-only and returns ``AnalyticsData`` (or nil for "nothing to
/// report"), so analytics code can neither change the app's state nor run effects of its own.
/// Call it from your reducer in one line, before your own state changes, so it sees the state
/// the action arrived in (as the analytics reducer placed first in a TCA `body` does):
///
/// ```swift
/// static let analytics = AnalyticsReducer<Feature.State, Feature.Action> { state, action in
///     switch action {
///     case .buttonTapped: return .event(name: "ButtonTapped")
///     case .downloadFinished: return nil
///     }
/// }
///
/// func reduce(into state: inout State, action: Action) -> Effect {
///     Self.analytics.reduce(into: state, action: action, client: analyticsClient)
///     switch action { ... }  // the feature code, free of analytics
/// }
/// ```
///
/// The mapping is `@Sendable` so a reducer can keep it in a `static let` or in a `Sendable`
/// reducer type; it receives state and action as arguments, so those need not be `Sendable`.
public struct AnalyticsReducer<State, Action>: Sendable {
    /// The mapping from the state (as the action arrived) and the action to analytics.
    public let toAnalyticsData: @Sendable (State, Action) -> AnalyticsData?

    /// Creates an analytics reducer from its mapping.
    public init(_ toAnalyticsData: @escaping @Sendable (_ state: State, _ action: Action) -> AnalyticsData?) {
        self.toAnalyticsData = toAnalyticsData
    }

    /// The analytics for `action` in `state`, without sending them.
    public func analytics(for state: State, action: Action) -> AnalyticsData? {
        toAnalyticsData(state, action)
    }

    /// Maps `action` in `state` and sends the result, if any, to `client`.
    public func reduce(into state: State, action: Action, client: AnalyticsClient) {
        guard let data = toAnalyticsData(state, action) else { return }
        client.sendAnalytics(data)
    }
}

/// Maps a reducer's actions to any number of analytics values, and nothing else.
///
/// Like ``AnalyticsReducer``, for actions that report several things at once (say, a sign-in
/// that sets the user id, a user property and sends an event). The values are sent in order.
public struct MultipleAnalyticsReducer<State, Action>: Sendable {
    /// The mapping from the state (as the action arrived) and the action to analytics.
    public let toAnalyticsData: @Sendable (State, Action) -> [AnalyticsData]

    /// Creates an analytics reducer from its mapping.
    public init(_ toAnalyticsData: @escaping @Sendable (_ state: State, _ action: Action) -> [AnalyticsData]) {
        self.toAnalyticsData = toAnalyticsData
    }

    /// The analytics for `action` in `state`, without sending them.
    public func analytics(for state: State, action: Action) -> [AnalyticsData] {
        toAnalyticsData(state, action)
    }

    /// Maps `action` in `state` and sends each resulting value, in order, to `client`.
    public func reduce(into state: State, action: Action, client: AnalyticsClient) {
        for data in toAnalyticsData(state, action) {
            client.sendAnalytics(data)
        }
    }
}
