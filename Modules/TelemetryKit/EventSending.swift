/// Sends an event into a client's pipeline. Handed to processors as `emitter`.
///
/// Events sent this way run the whole pipeline (including the sending processor). `send`
/// returns once the event is queued in order; it never waits for processing, so it is safe
/// to call from inside `process`.
public protocol EventSending: Sendable {
    func send(_ input: EventInput) async
}
