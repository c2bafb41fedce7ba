public import TelemetryKitTypedEvents

extension Telemetry {
    /// Sends a typed event and returns at once (fire-and-forget): the same event as
    /// `event(name, parameters:floatValue:)` with the type's name, parameters and float value.
    ///
    /// ```swift
    /// Telemetry.event(CheckoutCompleted(items: 3, coupon: nil, total: 19.99))
    /// ```
    public static func event(_ event: some TypedEvent, customUserID: String? = nil) {
        signal(EventInput(event, customUserID: customUserID))
    }

    /// Sends a typed event and returns once it is cached (or buffered before `initialize`),
    /// on the caller's executor, as the untyped async `event` does.
    nonisolated(nonsending) public static func event(_ event: some TypedEvent, customUserID: String? = nil) async {
        await send(EventInput(event, customUserID: customUserID))
    }

    /// Sends a typed event and returns at once: the explicit spelling of the synchronous `event`.
    public static func signal(_ event: some TypedEvent, customUserID: String? = nil) {
        signal(EventInput(event, customUserID: customUserID))
    }

    /// Sends a typed event and returns once it is cached (or buffered before `initialize`).
    nonisolated(nonsending) public static func send(_ event: some TypedEvent, customUserID: String? = nil) async {
        await send(EventInput(event, customUserID: customUserID))
    }

    /// A typed event that is also a `String` enum (`@TelemetryEvent enum Screen: String`): sent
    /// as the typed event, with its name and parameters, not as a name made of its raw value.
    public static func event<Event: TypedEvent & RawRepresentable>(_ event: Event, customUserID: String? = nil)
    where Event.RawValue == String {
        signal(EventInput(event, customUserID: customUserID))
    }

    /// The `async` form for a typed event that is also a `String` enum: returns once it is cached.
    nonisolated(nonsending) public static func event<Event: TypedEvent & RawRepresentable>(
        _ event: Event,
        customUserID: String? = nil
    ) async where Event.RawValue == String {
        await send(EventInput(event, customUserID: customUserID))
    }
}
