import TelemetryKit

/// The emitter handed to `start`: the processors under test never emit events.
struct UnusedEmitter: EventSending {
    func send(_ input: EventInput) async {}
}

/// The finalizer every test pipeline ends in.
let testFinalizer = EventFinalizer(appID: "TEST-APP", salt: "pepper", logger: SilentLogger())
