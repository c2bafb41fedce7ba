public import TelemetryKitClient
import TelemetryKitPresets
import TelemetryKitTypedEvents

extension AnalyticsClient {
    /// A client that feeds TelemetryKit's pipeline through `client`.
    ///
    /// | data | what `client` gets |
    /// |---|---|
    /// | `.event(name:properties:)` | `event(name, parameters: properties)` |
    /// | `.screen(name:)` | the `navigationPathChanged` preset from the previous screen sent through this analytics client (`""` for the first) to `name` |
    /// | `.userId(id)` | `setUserIdentifier(id)`: later events are attributed to `id` |
    /// | `.userProperty(name:value:)` | `setDefaultParameter(name, value: value)`: later events carry it |
    /// | `.typedEvent(event)` | `event(EventInput(event))`: the typed event's name, parameters (with their types) and float value |
    /// | `.error(error)` | the `errorOccurred(identifiableError:)` preset, with the id of `AnyIdentifiableError(error)` (its `IdentifiableError` id, else `Type.case` or the type's name) |
    ///
    /// Screens and errors are the same presets the `Telemetry` facade sends, so dashboards
    /// read them alike. Everything goes through the client's ordered, fire-and-forget intake,
    /// so sending never blocks the reducer.
    public static func telemetry(_ client: TelemetryClient) -> AnalyticsClient {
        // The previous screen, per analytics client: the source of the next navigation event.
        let screens = NavigationHistory()
        return AnalyticsClient { data in
            switch data {
            case let .event(name, properties):
                client.event(name, parameters: EventParameters(properties))
            case let .screen(name):
                let source = screens.advance(to: name)
                client.event(.navigationPathChanged(from: source, to: name))
            case let .userId(identifier):
                client.setUserIdentifier(identifier)
            case let .userProperty(name, value):
                client.setDefaultParameter(name, value: value)
            case let .error(error):
                client.event(.errorOccurred(identifiableError: AnyIdentifiableError(error)))
            case let .typedEvent(event):
                client.event(EventInput(event))
            }
        }
    }
}
