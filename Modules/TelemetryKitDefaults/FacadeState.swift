#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything the `Telemetry` facade keeps, under one lock: the running client, or what was
/// gathered before `initialize` finished (``Gathered``). One owner, so each event checks the
/// opt-out choice once and takes one lock on its way to the record or the client.
struct FacadeState: Sendable {
    enum Phase: Sendable {
        /// No client: events are buffered for the next `initialize`.
        case waiting
        /// `initialize` is building and starting the client: events are still buffered.
        case initializing
        case running(TelemetryClient)
    }

    /// What the app did before `initialize`: the one record of it, replayed into the client
    /// as `initialize` finishes (``replay(into:)``), and discarded by `terminate` or
    /// `removeAllData()` before then.
    struct Gathered: Sendable {
        /// A duration started before `initialize`.
        struct Duration: Sendable {
            var parameters: EventParameters
            var includeBackgroundTime: Bool
            var startedAt: Date
        }

        /// Events, oldest first; the oldest are dropped when it is full.
        var events = BoundedBuffer<EventInput>(capacity: Telemetry.preInitializeBufferLimit)
        /// The opt-out choice (nil: none; the persisted one applies). Applied before the
        /// client starts, so that nothing its processors send is kept against it.
        var analyticsChoice: Bool?
        var durations: [String: Duration] = [:]
        /// The last navigation destination; the client's history goes on from it.
        var navigationDestination: String?

        /// Hands everything but the analytics choice to `client`, in the order the app's
        /// later calls expect: the navigation history and the running durations first, then
        /// the events in the order they were sent (which leave the record).
        mutating func replay(into client: TelemetryClient) {
            if let navigationDestination {
                client.navigationHistory.record(navigationDestination)
            }
            for (name, duration) in durations {
                client.startDurationEvent(
                    name,
                    parameters: duration.parameters,
                    includeBackgroundTime: duration.includeBackgroundTime,
                    startedAt: duration.startedAt
                )
            }
            for input in events.removeAll() {
                client.event(input)
            }
        }
    }

    var phase = Phase.waiting
    /// The configuration of the `initialize` that is running or ran (nil while waiting).
    var configuration: Telemetry.Config?
    var gathered = Gathered()
    /// Events dropped before `initialize` because the record was full, since the last
    /// `terminate`.
    var droppedBeforeInitialize = 0
    /// Events dropped before `initialize` because analytics were disabled.
    var droppedWhileDisabled = 0
    /// `removeAllData()` was called before `initialize`: the next one erases the data on disk
    /// before anything starts.
    var erasesAtInitialize = false

    var client: TelemetryClient? {
        if case .running(let client) = phase { return client }
        return nil
    }

    /// What happens to an event sent now.
    enum Intake {
        /// Send it to this client.
        case client(TelemetryClient)
        /// Buffered, or dropped by an opt-out made before `initialize`.
        case handled
    }

    /// Buffers `input` before `initialize` (or drops it while analytics are disabled), or
    /// names the client to send it to.
    mutating func take(_ input: EventInput) -> Intake {
        if case .running(let client) = phase { return .client(client) }
        if gathered.analyticsChoice == true {
            droppedWhileDisabled += 1
        } else if gathered.events.append(input) != nil {
            droppedBeforeInitialize += 1
        }
        return .handled
    }

    /// Starts afresh after `terminate`: nothing gathered, no drop before `initialize` counted
    /// (those while analytics were disabled are kept, as the client's are).
    mutating func resetAfterTermination() {
        gathered = Gathered()
        droppedBeforeInitialize = 0
        phase = .waiting
        configuration = nil
    }
}
