public import TelemetryKit

/// An event whose name, parameter keys and parameter types are checked by the compiler.
///
/// An app writes one type per event (a struct) or per family of events (an enum, one event per
/// case) and sends its values wherever an event name is accepted. A misspelled name or a
/// parameter sent as a string here and an int there can no longer split the app's analytics:
/// the name and keys are written once, on the type, and every call site passes a value.
///
/// `@TelemetryEvent` (trait `TypedEvents`) writes the conformance. Without the trait this
/// module holds only this protocol, ``EventSchema`` and the value coding the macro's expansion
/// calls, so the client, the composable client and `TrackingPlan` accept typed events without
/// depending on the macro or on swift-syntax:
///
/// ```swift
/// @TelemetryEvent("Checkout.completed")
/// struct CheckoutCompleted {
///     let items: Int
///     let coupon: String?
///     @EventFloatValue let total: Double
/// }
///
/// client.event(CheckoutCompleted(items: 3, coupon: nil, total: 19.99))
/// // the same event as client.event("Checkout.completed", parameters: ["items": 3], floatValue: 19.99)
/// ```
///
/// ## Implementation requirements
///
/// Conforming by hand is allowed (the macro only saves the typing). Then:
/// - ``eventName``, ``parameters`` and ``floatValue`` are read on the caller's thread for every
///   event: compute them from stored properties, without reflection or I/O.
/// - ``eventSchemas`` must describe every event a value can produce — its name, each key with
///   its ``EventParameterType`` and whether it may be missing — because `TrackingPlan` and
///   `TrackingPlanProcessor` judge untyped events by it.
public protocol TypedEvent: Sendable {
    /// The events this type sends, as a tracking plan lists them: one for a struct, one per
    /// case for an enum.
    static var eventSchemas: [EventSchema] { get }

    /// The event's name, e.g. `Checkout.completed`.
    var eventName: String { get }

    /// The event's parameters; a property that is nil is left out.
    var parameters: EventParameters { get }

    /// The value sent as the event's `floatValue`, if the type marks one.
    var floatValue: Double? { get }
}

extension TypedEvent {
    /// Nil: most events carry no float value.
    @inlinable
    public var floatValue: Double? { nil }
}
