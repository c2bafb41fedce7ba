import TelemetryKit
import TelemetryKitTypedEvents

/// The payment plan of ``CheckoutCompletedEvent``.
enum CheckoutPlan: String, Sendable {
    case free
    case pro
}

/// A typed event with four parameters and a float value, conformed as `@TelemetryEvent`
/// expands it (the expansion pinned in TelemetryEventExpansionTests), written out here so the
/// benchmarks need neither the TypedEvents trait nor swift-syntax.
///
/// ```swift
/// @TelemetryEvent("Checkout.completed")
/// struct CheckoutCompletedEvent {
///     let items: Int
///     let plan: CheckoutPlan
///     let coupon: String?
///     let express: Bool
///     @EventFloatValue let total: Double
/// }
/// ```
struct CheckoutCompletedEvent {
    let items: Int
    let plan: CheckoutPlan
    let coupon: String?
    let express: Bool
    let total: Double
}

extension CheckoutCompletedEvent: TelemetryKitTypedEvents.TypedEvent {
    static var eventSchemas: [TelemetryKitTypedEvents.EventSchema] {
        [
            TelemetryKitTypedEvents.EventSchema(
                name: "Checkout.completed",
                parameters: [
                    TelemetryKitTypedEvents.EventSchema.Parameter(
                        key: "items",
                        type: TelemetryKitTypedEvents.TypedEventCoding.parameterType(Int.self),
                        isOptional: false
                    ),
                    TelemetryKitTypedEvents.EventSchema.Parameter(
                        key: "plan",
                        type: TelemetryKitTypedEvents.TypedEventCoding.parameterType(CheckoutPlan.self),
                        isOptional: false
                    ),
                    TelemetryKitTypedEvents.EventSchema.Parameter(
                        key: "coupon",
                        type: TelemetryKitTypedEvents.TypedEventCoding.parameterType(String.self),
                        isOptional: true
                    ),
                    TelemetryKitTypedEvents.EventSchema.Parameter(
                        key: "express",
                        type: TelemetryKitTypedEvents.TypedEventCoding.parameterType(Bool.self),
                        isOptional: false
                    ),
                ],
                floatValue: TelemetryKitTypedEvents.EventSchema.FloatValue(isOptional: false)
            )
        ]
    }
    var eventName: Swift.String {
        "Checkout.completed"
    }
    var parameters: TelemetryKit.EventParameters {
        var values = [Swift.String: TelemetryKit.PayloadValue](minimumCapacity: 4)
        values["items"] = TelemetryKitTypedEvents.TypedEventCoding.payloadValue(self.items)
        values["plan"] = TelemetryKitTypedEvents.TypedEventCoding.payloadValue(self.plan)
        if let value = self.coupon {
            values["coupon"] = TelemetryKitTypedEvents.TypedEventCoding.payloadValue(value)
        }
        values["express"] = TelemetryKitTypedEvents.TypedEventCoding.payloadValue(self.express)
        return TelemetryKit.EventParameters(values)
    }
    var floatValue: Swift.Double? {
        self.total
    }
}
