/// Sends analytics when a value derived from the state changes, whatever action changed it.
///
/// Useful for facts that several actions can change, such as the visible tab or a sign-in
/// status: report the change once here instead of in every action that causes it.
///
/// ```swift
/// static let tabAnalytics = OnChangeAnalyticsReducer<AppState, Tab>(of: \.selectedTab) { _, tab in
///     .screen(name: tab.rawValue)
/// }
///
/// func reduce(into state: inout AppState, action: AppAction) -> Effect {
///     Self.tabAnalytics.reduce(into: &state, client: analyticsClient) { state in
///         core(&state, action)   // the feature's own reducer
///     }
/// }
/// ```
public struct OnChangeAnalyticsReducer<State, Value: Equatable>: Sendable {
    /// Derives the watched value from the state.
    public let value: @Sendable (State) -> Value
    /// Maps a change (old value, new value) to analytics.
    public let toAnalyticsData: @Sendable (Value, Value) -> AnalyticsData?

    /// Creates a reducer that watches `value` and maps each change with `toAnalyticsData`.
    public init(
        of value: @escaping @Sendable (State) -> Value,
        _ toAnalyticsData: @escaping @Sendable (_ oldValue: Value, _ newValue: Value) -> AnalyticsData?
    ) {
        self.value = value
        self.toAnalyticsData = toAnalyticsData
    }

    /// Sends analytics if the watched value differs between `oldState` and `newState`.
    public func reduce(from oldState: State, to newState: State, client: AnalyticsClient) {
        let oldValue = value(oldState)
        let newValue = value(newState)
        guard oldValue != newValue, let data = toAnalyticsData(oldValue, newValue) else { return }
        client.sendAnalytics(data)
    }

    /// Runs `body` (the feature's reducer) on `state`, then sends analytics if it changed the
    /// watched value. Returns what `body` returns (e.g. the reducer's effect).
    public func reduce<Result>(
        into state: inout State,
        client: AnalyticsClient,
        _ body: (inout State) throws -> Result
    ) rethrows -> Result {
        let oldValue = value(state)
        let result = try body(&state)
        let newValue = value(state)
        if oldValue != newValue, let data = toAnalyticsData(oldValue, newValue) {
            client.sendAnalytics(data)
        }
        return result
    }
}
