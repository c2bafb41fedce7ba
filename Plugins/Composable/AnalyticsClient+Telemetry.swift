public import TelemetryKit

extension AnalyticsClient {
    /// Event names and parameter keys that ``telemetry(_:)`` sends.
    ///
    /// They follow the TelemetryDeck SDK's navigation and error signals, so dashboards built
    /// for those read screen views and errors from a composable app as well.
    public enum TelemetryKeys {
        /// The event sent for ``AnalyticsData/screen(name:)``.
        public static let screenViewEvent = "TelemetryDeck.Navigation.pathChanged"
        /// Version of the navigation parameters' shape; always `"1"`.
        public static let navigationSchemaVersion = "TelemetryDeck.Navigation.schemaVersion"
        /// `"<source> -> <destination>"`.
        public static let navigationIdentifier = "TelemetryDeck.Navigation.identifier"
        /// The previous screen sent through the same client (`""` for the first).
        public static let navigationSourcePath = "TelemetryDeck.Navigation.sourcePath"
        /// The screen's name.
        public static let navigationDestinationPath = "TelemetryDeck.Navigation.destinationPath"

        /// The event sent for ``AnalyticsData/error(_:)``.
        public static let errorEvent = "TelemetryDeck.Error.occurred"
        /// The error's fully qualified type name, e.g. `MyApp.NetworkError`.
        public static let errorID = "TelemetryDeck.Error.id"
        /// `"thrown-exception"`: the error came from a `throw`.
        public static let errorCategory = "TelemetryDeck.Error.category"
        /// The error's description (`String(describing:)`).
        public static let errorMessage = "TelemetryDeck.Error.message"

        /// The value of ``navigationSchemaVersion``.
        public static let navigationSchemaVersionValue = "1"
        /// The value of ``errorCategory``.
        public static let thrownExceptionCategory = "thrown-exception"
    }

    /// A client that feeds TelemetryKit's pipeline through `client`.
    ///
    /// | data | what `client` gets |
    /// |---|---|
    /// | `.event(name:properties:)` | `event(name, parameters: properties)` |
    /// | `.screen(name:)` | a ``TelemetryKeys/screenViewEvent`` event with the screen under ``TelemetryKeys/navigationDestinationPath`` and the previous screen under ``TelemetryKeys/navigationSourcePath`` |
    /// | `.userId(id)` | `setUserIdentifier(id)`: later events are attributed to `id` |
    /// | `.userProperty(name:value:)` | `setDefaultParameter(name, value: value)`: later events carry it |
    /// | `.error(error)` | a ``TelemetryKeys/errorEvent`` event with the error's type (``TelemetryKeys/errorID``) and description (``TelemetryKeys/errorMessage``) |
    ///
    /// Screen and error events use the SDK's reserved `TelemetryDeck.` namespace and are sent
    /// with `skipsReservedPrefixValidation`. Everything goes through the client's ordered,
    /// fire-and-forget intake, so sending never blocks the reducer.
    public static func telemetry(_ client: TelemetryClient) -> AnalyticsClient {
        // The previous screen, per analytics client: the source of the next navigation event.
        let previousScreen = Locked<String?>(nil)
        return AnalyticsClient { data in
            switch data {
            case let .event(name, properties):
                client.event(name, parameters: EventParameters(properties))
            case let .screen(name):
                let source = previousScreen.withLock { previous -> String in
                    defer { previous = name }
                    return previous ?? ""
                }
                client.event(
                    EventInput(
                        TelemetryKeys.screenViewEvent,
                        parameters: [
                            TelemetryKeys.navigationSchemaVersion: TelemetryKeys.navigationSchemaVersionValue,
                            TelemetryKeys.navigationIdentifier: "\(source) -> \(name)",
                            TelemetryKeys.navigationSourcePath: source,
                            TelemetryKeys.navigationDestinationPath: name,
                        ],
                        skipsReservedPrefixValidation: true
                    )
                )
            case let .userId(identifier):
                client.setUserIdentifier(identifier)
            case let .userProperty(name, value):
                client.setDefaultParameter(name, value: value)
            case let .error(error):
                client.event(
                    EventInput(
                        TelemetryKeys.errorEvent,
                        parameters: [
                            TelemetryKeys.errorID: AnalyticsData.typeName(of: error),
                            TelemetryKeys.errorCategory: TelemetryKeys.thrownExceptionCategory,
                            TelemetryKeys.errorMessage: String(describing: error),
                        ],
                        skipsReservedPrefixValidation: true
                    )
                )
            }
        }
    }
}
