@_exported public import TelemetryKit

#if TypedEvents
/// Makes a struct or an enum a ``TypedEvent``: an event whose name, keys and
/// parameter types the compiler checks.
///
/// On a struct, each stored property is a parameter keyed by its name; the event's name is
/// `name`, or without it the type's name qualified with the types it is nested in
/// (`CheckoutCompleted` → `CheckoutCompleted`, `Checkout.Completed` → `Checkout.Completed`):
///
/// ```swift
/// @TelemetryEvent("Checkout.completed")
/// struct CheckoutCompleted {
///     let items: Int
///     let plan: Plan                      // enum Plan: String
///     @EventParameter("coupon.code") let coupon: String?   // left out when nil
///     @EventFloatValue let total: Double
/// }
/// ```
///
/// On an enum, each case is an event named `<name>.<case>` (`name` defaults to the qualified
/// type name) with its labelled associated values as parameters; an associated value labelled
/// `floatValue` is the float value, and `@EventName("...")` on a case names its event:
///
/// ```swift
/// @TelemetryEvent
/// enum Checkout {
///     case started(items: Int)                               // "Checkout.started"
///     case completed(items: Int, floatValue: Double)         // "Checkout.completed"
///     @EventName("Checkout.abandoned.v2") case abandoned     // renamed
/// }
/// ```
///
/// Parameters may be `String`, `Int`, `Double`, `Bool`, `Date`, `UUID`, `URL`, enums with
/// `String` or `Int` raw values, and optionals of these. Anything else, a name or key in the
/// reserved `TelemetryDeck.` namespace, an empty name or key, or two properties sent under one
/// key is a compile-time error.
@attached(
    extension,
    conformances: TypedEvent,
    names: named(eventSchemas),
    named(eventName),
    named(parameters),
    named(floatValue)
)
public macro TelemetryEvent(_ name: String? = nil) =
    #externalMacro(module: "TelemetryKitTypedEventsMacros", type: "TelemetryEventMacro")

/// Sends a `@TelemetryEvent` struct's property under `key` instead of its name.
///
/// ```swift
/// @EventParameter("coupon.code") let coupon: String?
/// ```
@attached(peer)
public macro EventParameter(_ key: String) =
    #externalMacro(module: "TelemetryKitTypedEventsMacros", type: "EventParameterMacro")

/// Sends a `@TelemetryEvent` struct's `Double` property as the event's `floatValue` (which
/// TelemetryDeck's dashboards sum and average) instead of as a parameter.
@attached(peer)
public macro EventFloatValue() =
    #externalMacro(module: "TelemetryKitTypedEventsMacros", type: "EventFloatValueMacro")

/// Names the event of a `@TelemetryEvent` enum's case, instead of `<enum name>.<case>`.
@attached(peer)
public macro EventName(_ name: String) =
    #externalMacro(module: "TelemetryKitTypedEventsMacros", type: "EventNameMacro")
#endif
