public import TelemetryKit
import TelemetryKitSupport

/// A transmitter for tests: records every batch and answers with scripted outcomes.
///
/// ```swift
/// let spy = SpyEventTransmitter()
/// spy.script([.retry(after: nil), .delivered])   // then `.delivered` for the rest
/// ```
public final class SpyEventTransmitter: EventTransmitting {
    private struct State {
        var batches: [[Event]] = []
        var delivered: [Event] = []
        var script: [TransmissionOutcome] = []
        var rule: (@Sendable ([Event]) -> TransmissionOutcome)?
    }

    private let state = Locked(State())

    /// Creates a spy that delivers everything unless scripted otherwise.
    public init() {}

    /// Queues outcomes for the next transmissions, in order; afterwards `.delivered`
    /// (or the rule set with `respond(with:)`).
    public func script(_ outcomes: [TransmissionOutcome]) {
        state.withLock { $0.script.append(contentsOf: outcomes) }
    }

    /// Answers each batch that is not scripted with `rule(batch)`.
    public func respond(with rule: @escaping @Sendable ([Event]) -> TransmissionOutcome) {
        state.withLock { $0.rule = rule }
    }

    public func transmit(_ batch: [Event]) async -> TransmissionOutcome {
        state.withLock { state in
            state.batches.append(batch)
            let outcome: TransmissionOutcome
            if !state.script.isEmpty {
                outcome = state.script.removeFirst()
            } else if let rule = state.rule {
                outcome = rule(batch)
            } else {
                outcome = .delivered
            }
            if outcome == .delivered { state.delivered.append(contentsOf: batch) }
            return outcome
        }
    }

    /// Every event of every batch that was answered `.delivered`, in order.
    public var transmittedEvents: [Event] {
        get async { state.withLock { $0.delivered } }
    }

    /// Every batch the spy was asked to send (including failed attempts), in order.
    public var transmittedBatches: [[Event]] {
        get async { state.withLock { $0.batches } }
    }

    /// Synchronous access to the delivered events.
    public var deliveredEvents: [Event] {
        state.withLock { $0.delivered }
    }

    /// Synchronous access to all attempted batches.
    public var batches: [[Event]] {
        state.withLock { $0.batches }
    }

    /// Forgets everything recorded so far.
    public func reset() {
        state.withLock { state in
            state.batches = []
            state.delivered = []
        }
    }
}
