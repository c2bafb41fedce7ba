/// Sends ``AnalyticsData`` somewhere: TelemetryKit's pipeline, the console, a test expectation.
///
/// A client is a struct of one closure, so an app builds its own in a few lines and combines
/// several with ``merge(_:)-(AnalyticsClient...)``:
///
/// ```swift
/// let analytics = AnalyticsClient.merge(.consoleLogger, .telemetry(telemetryClient))
/// analytics.send(.screen(name: "Settings"))
/// ```
///
/// `sendAnalytics` is called synchronously from the reducer that produced the data, so an
/// implementation must be cheap and must not block: hand the data to a queue (as
/// ``telemetry(_:)`` does with the client's ordered intake) instead of doing I/O inline.
public struct AnalyticsClient: Sendable {
    /// Sends one piece of analytics.
    public var sendAnalytics: @Sendable (AnalyticsData) -> Void

    /// The expectations of a test client (see ``expect(_:fileID:filePath:line:column:)``);
    /// nil for every other client.
    var expectations: AnalyticsExpectations?

    /// Creates a client from its send function.
    public init(sendAnalytics: @escaping @Sendable (AnalyticsData) -> Void) {
        self.sendAnalytics = sendAnalytics
        self.expectations = nil
    }

    init(expectations: AnalyticsExpectations) {
        self.sendAnalytics = { data in expectations.receive(data) }
        self.expectations = expectations
    }

    /// Sends `data` (the same as calling ``sendAnalytics``).
    public func send(_ data: AnalyticsData) {
        sendAnalytics(data)
    }

    /// Sends `data`, so a client reads like a function: `analyticsClient(.event("Saved"))`.
    public func callAsFunction(_ data: AnalyticsData) {
        sendAnalytics(data)
    }
}

extension AnalyticsClient {
    /// A client that sends every piece of data to each of `clients`, in the order given.
    public static func merge(_ clients: AnalyticsClient...) -> AnalyticsClient {
        merge(clients)
    }

    /// A client that sends every piece of data to each of `clients`, in the order given.
    public static func merge(_ clients: [AnalyticsClient]) -> AnalyticsClient {
        let senders = clients.map(\.sendAnalytics)
        return AnalyticsClient { data in
            for send in senders { send(data) }
        }
    }

    /// A client that drops everything (for previews, or to switch analytics off).
    public static let noop = AnalyticsClient { _ in }

    /// A client that prints each piece of data to standard output as `[Analytics] ✅ <data>`.
    public static let consoleLogger = consoleLogger { line in print(line) }

    /// A client that formats each piece of data like ``consoleLogger`` and hands the line to
    /// `write` (e.g. a logger of the app's own, or a recorder in a test).
    public static func consoleLogger(write: @escaping @Sendable (String) -> Void) -> AnalyticsClient {
        AnalyticsClient { data in write("[Analytics] ✅ \(data)") }
    }
}
