#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Everything the `Telemetry` facade keeps, under one lock: the running client, or what was
/// gathered before `initialize` finished (events, the opt-out choice, durations, the last
/// navigation destination). One owner, so each event checks the opt-out choice once and
/// takes one lock on its way to the buffer or the client.
struct FacadeState: Sendable {
    enum Phase: Sendable {
        /// No client: events are buffered for the next `initialize`.
        case waiting
        /// `initialize` is building and starting the client: events are still buffered.
        case initializing
        case running(TelemetryClient)
    }

    /// A duration started before `initialize`, handed to the client when it exists.
    struct EarlyDuration: Sendable {
        var parameters: EventParameters
        var includeBackgroundTime: Bool
        var startedAt: Date
    }

    var phase = Phase.waiting
    /// The configuration of the `initialize` that is running or ran (nil while waiting).
    var configuration: Telemetry.Config?
    /// Events sent before `initialize`, oldest first; the oldest are dropped when it is full.
    var buffer = BoundedBuffer<EventInput>(capacity: Telemetry.preInitializeBufferLimit)
    /// The opt-out choice made before `initialize` (nil: none; the persisted one applies).
    var analyticsChoice: Bool?
    var durations: [String: EarlyDuration] = [:]
    /// The last navigation destination before `initialize`; the client's history takes over.
    var navigationDestination: String?
    /// Events dropped from earlier buffers (the current buffer counts its own).
    var droppedFromEarlierBuffers = 0
    /// Events dropped before `initialize` because analytics were disabled.
    var droppedWhileDisabled = 0
    /// `removeAllData()` was called before `initialize`: the next one erases the data on disk
    /// before anything starts.
    var erasesAtInitialize = false

    var client: TelemetryClient? {
        if case .running(let client) = phase { return client }
        return nil
    }

    /// Events dropped so far because the buffer was full.
    var droppedBeforeInitialize: Int { droppedFromEarlierBuffers + buffer.droppedCount }

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
        if analyticsChoice == true {
            droppedWhileDisabled += 1
        } else {
            buffer.append(input)
        }
        return .handled
    }

    /// Starts afresh after `terminate`: an empty buffer, the drop counts kept.
    mutating func resetAfterTermination() {
        droppedFromEarlierBuffers = 0
        buffer = BoundedBuffer(capacity: Telemetry.preInitializeBufferLimit)
        phase = .waiting
        configuration = nil
    }
}
