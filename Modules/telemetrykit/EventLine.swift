#if Tools
import TelemetryKit
import TelemetryKitConsole

/// One line per received event, the console transmitter's format.
enum EventLine {
    private static let console = ConsoleEventTransmitter()

    static func format(_ event: Event) -> String {
        console.line(for: event)
    }
}
#endif
