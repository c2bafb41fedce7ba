#if Dependencies
public import Dependencies
import IssueReporting
import TelemetryKit
import TelemetryKitSupport

extension AnalyticsClient: DependencyKey {
    /// Drops everything until the app sets its client, and says so once.
    ///
    /// Set the real client where the app builds its root store:
    /// `withDependencies { $0.analyticsClient = .telemetry(client) } operation: { ... }`
    /// or `prepareDependencies { $0.analyticsClient = .telemetry(client) }`.
    public static let liveValue = AnalyticsClient.unconfigured()

    /// Fails the test on any use: a test states the analytics it expects with
    /// `$0.analyticsClient.expect(...)`.
    public static var testValue: AnalyticsClient { .test }

    /// Previews print what they would send.
    public static var previewValue: AnalyticsClient { .consoleLogger }

    /// A no-op client that reports a warning (through IssueReporting) the first time it drops
    /// data: losing analytics silently would hide a missing setup.
    static func unconfigured() -> AnalyticsClient {
        let warned = Locked(false)
        return AnalyticsClient { data in
            let first = warned.withLock { warned -> Bool in
                defer { warned = true }
                return !warned
            }
            guard first else { return }
            reportIssue(
                """
                AnalyticsClient is not configured: \(data) and all later analytics are dropped. \
                Set `analyticsClient` in the app's dependencies, e.g. \
                `prepareDependencies { $0.analyticsClient = .telemetry(client) }`.
                """,
                severity: .warning
            )
        }
    }
}

extension DependencyValues {
    /// The client that ``AnalyticsReducer``, ``MultipleAnalyticsReducer`` and
    /// ``OnChangeAnalyticsReducer`` send to when no client is passed.
    public var analyticsClient: AnalyticsClient {
        get { self[AnalyticsClient.self] }
        set { self[AnalyticsClient.self] = newValue }
    }
}

extension AnalyticsReducer {
    /// Maps `action` in `state` and sends the result, if any, to `@Dependency(\.analyticsClient)`.
    public func reduce(into state: State, action: Action) {
        @Dependency(\.analyticsClient) var analyticsClient
        reduce(into: state, action: action, client: analyticsClient)
    }
}

extension MultipleAnalyticsReducer {
    /// Maps `action` in `state` and sends each value to `@Dependency(\.analyticsClient)`.
    public func reduce(into state: State, action: Action) {
        @Dependency(\.analyticsClient) var analyticsClient
        reduce(into: state, action: action, client: analyticsClient)
    }
}

extension OnChangeAnalyticsReducer {
    /// Runs `body` on `state`, then sends analytics for a change of the watched value to
    /// `@Dependency(\.analyticsClient)`.
    public func reduce<Result>(into state: inout State, _ body: (inout State) throws -> Result) rethrows -> Result {
        @Dependency(\.analyticsClient) var analyticsClient
        return try reduce(into: &state, client: analyticsClient, body)
    }
}
#endif
