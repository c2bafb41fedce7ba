#if TypedEvents
import Testing

/// The code `@TelemetryEvent` writes, pinned.
struct TelemetryEventExpansionTests {
    @Test func structWithNameKeysOptionalAndFloatValue() {
        assertExpansion(
            """
            @TelemetryEvent("Checkout.completed")
            struct CheckoutCompleted {
                let items: Int
                let plan: Plan
                @EventParameter("coupon.code") let coupon: String?
                @EventFloatValue let total: Double
                static let currency = "USD"
                var summary: String { "\\(items) items" }
            }
            """,
            expandedSource: """
                struct CheckoutCompleted {
                    let items: Int
                    let plan: Plan
                    let coupon: String?
                    let total: Double
                    static let currency = "USD"
                    var summary: String { "\\(items) items" }
                }

                extension CheckoutCompleted: TelemetryKitTypedEvents.TypedEvent {
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
                                        type: TelemetryKitTypedEvents.TypedEventCoding.parameterType(Plan.self),
                                        isOptional: false
                                    ),
                                    TelemetryKitTypedEvents.EventSchema.Parameter(
                                        key: "coupon.code",
                                        type: TelemetryKitTypedEvents.TypedEventCoding.parameterType(String.self),
                                        isOptional: true
                                    )
                                ],
                                floatValue: TelemetryKitTypedEvents.EventSchema.FloatValue(isOptional: false)
                            )
                        ]
                    }
                    var eventName: Swift.String {
                        "Checkout.completed"
                    }
                    var parameters: TelemetryKit.EventParameters {
                        var values = [Swift.String: TelemetryKit.PayloadValue](minimumCapacity: 3)
                        values["items"] = TelemetryKitTypedEvents.TypedEventCoding.payloadValue(self.items)
                        values["plan"] = TelemetryKitTypedEvents.TypedEventCoding.payloadValue(self.plan)
                        if let value = self.coupon {
                            values["coupon.code"] = TelemetryKitTypedEvents.TypedEventCoding.payloadValue(value)
                        }
                        return TelemetryKit.EventParameters(values)
                    }
                    var floatValue: Swift.Double? {
                        self.total
                    }
                }
                """
        )
    }

    @Test func publicStructWithoutArgumentInsideAnExtension() {
        assertExpansion(
            """
            extension Onboarding {
                @TelemetryEvent
                public struct StepShown {
                    public var step: Int { didSet {} }
                    public let startedAt: Optional<Date>
                }
            }
            """,
            expandedSource: """
                extension Onboarding {
                    public struct StepShown {
                        public var step: Int { didSet {} }
                        public let startedAt: Optional<Date>
                    }
                }

                extension Onboarding.StepShown: TelemetryKitTypedEvents.TypedEvent {
                    public static var eventSchemas: [TelemetryKitTypedEvents.EventSchema] {
                        [
                            TelemetryKitTypedEvents.EventSchema(
                                name: "Onboarding.StepShown",
                                parameters: [
                                    TelemetryKitTypedEvents.EventSchema.Parameter(
                                        key: "step",
                                        type: TelemetryKitTypedEvents.TypedEventCoding.parameterType(Int.self),
                                        isOptional: false
                                    ),
                                    TelemetryKitTypedEvents.EventSchema.Parameter(
                                        key: "startedAt",
                                        type: TelemetryKitTypedEvents.TypedEventCoding.parameterType(Date.self),
                                        isOptional: true
                                    )
                                ],
                                floatValue: nil
                            )
                        ]
                    }
                    public var eventName: Swift.String {
                        "Onboarding.StepShown"
                    }
                    public var parameters: TelemetryKit.EventParameters {
                        var values = [Swift.String: TelemetryKit.PayloadValue](minimumCapacity: 2)
                        values["step"] = TelemetryKitTypedEvents.TypedEventCoding.payloadValue(self.step)
                        if let value = self.startedAt {
                            values["startedAt"] = TelemetryKitTypedEvents.TypedEventCoding.payloadValue(value)
                        }
                        return TelemetryKit.EventParameters(values)
                    }
                }
                """
        )
    }

    @Test func emptyStruct() {
        assertExpansion(
            """
            @TelemetryEvent
            struct AppLaunched {}
            """,
            expandedSource: """
                struct AppLaunched {}

                extension AppLaunched: TelemetryKitTypedEvents.TypedEvent {
                    static var eventSchemas: [TelemetryKitTypedEvents.EventSchema] {
                        [
                            TelemetryKitTypedEvents.EventSchema(
                                name: "AppLaunched",
                                parameters: [],
                                floatValue: nil
                            )
                        ]
                    }
                    var eventName: Swift.String {
                        "AppLaunched"
                    }
                    var parameters: TelemetryKit.EventParameters {
                        return TelemetryKit.EventParameters()
                    }
                }
                """
        )
    }

    @Test func enumWithCasesFloatValueAndOverride() {
        assertExpansion(
            """
            @TelemetryEvent
            enum Checkout {
                case started(items: Int)
                case completed(items: Int, coupon: String?, floatValue: Double)
                @EventName("Checkout.abandonedCart") case abandoned
                case `default`
            }
            """,
            expandedSource: """
                enum Checkout {
                    case started(items: Int)
                    case completed(items: Int, coupon: String?, floatValue: Double)
                    case abandoned
                    case `default`
                }

                extension Checkout: TelemetryKitTypedEvents.TypedEvent {
                    static var eventSchemas: [TelemetryKitTypedEvents.EventSchema] {
                        [
                            TelemetryKitTypedEvents.EventSchema(
                                name: "Checkout.started",
                                parameters: [
                                    TelemetryKitTypedEvents.EventSchema.Parameter(
                                        key: "items",
                                        type: TelemetryKitTypedEvents.TypedEventCoding.parameterType(Int.self),
                                        isOptional: false
                                    )
                                ],
                                floatValue: nil
                            ),
                            TelemetryKitTypedEvents.EventSchema(
                                name: "Checkout.completed",
                                parameters: [
                                    TelemetryKitTypedEvents.EventSchema.Parameter(
                                        key: "items",
                                        type: TelemetryKitTypedEvents.TypedEventCoding.parameterType(Int.self),
                                        isOptional: false
                                    ),
                                    TelemetryKitTypedEvents.EventSchema.Parameter(
                                        key: "coupon",
                                        type: TelemetryKitTypedEvents.TypedEventCoding.parameterType(String.self),
                                        isOptional: true
                                    )
                                ],
                                floatValue: TelemetryKitTypedEvents.EventSchema.FloatValue(isOptional: false)
                            ),
                            TelemetryKitTypedEvents.EventSchema(
                                name: "Checkout.abandonedCart",
                                parameters: [],
                                floatValue: nil
                            ),
                            TelemetryKitTypedEvents.EventSchema(
                                name: "Checkout.default",
                                parameters: [],
                                floatValue: nil
                            )
                        ]
                    }
                    var eventName: Swift.String {
                        switch self {
                        case .started:
                            "Checkout.started"
                        case .completed:
                            "Checkout.completed"
                        case .abandoned:
                            "Checkout.abandonedCart"
                        case .`default`:
                            "Checkout.default"
                        }
                    }
                    var parameters: TelemetryKit.EventParameters {
                        switch self {
                        case .started(let value0):
                            var values = [Swift.String: TelemetryKit.PayloadValue](minimumCapacity: 1)
                            values["items"] = TelemetryKitTypedEvents.TypedEventCoding.payloadValue(value0)
                            return TelemetryKit.EventParameters(values)
                        case .completed(let value0, let value1, _):
                            var values = [Swift.String: TelemetryKit.PayloadValue](minimumCapacity: 2)
                            values["items"] = TelemetryKitTypedEvents.TypedEventCoding.payloadValue(value0)
                            if let value = value1 {
                                values["coupon"] = TelemetryKitTypedEvents.TypedEventCoding.payloadValue(value)
                            }
                            return TelemetryKit.EventParameters(values)
                        case .abandoned:
                            return TelemetryKit.EventParameters()
                        case .`default`:
                            return TelemetryKit.EventParameters()
                        }
                    }
                    var floatValue: Swift.Double? {
                        switch self {
                        case .completed(_, _, let value2):
                            value2
                        case .started, .abandoned, .`default`:
                            nil
                        }
                    }
                }
                """
        )
    }

    @Test func enumWithPrefixArgumentAndNoFloatValue() {
        assertExpansion(
            """
            @TelemetryEvent("Shop.Paywall")
            package enum Paywall {
                case shown(reason: String)
                case closed
            }
            """,
            expandedSource: """
                package enum Paywall {
                    case shown(reason: String)
                    case closed
                }

                extension Paywall: TelemetryKitTypedEvents.TypedEvent {
                    package static var eventSchemas: [TelemetryKitTypedEvents.EventSchema] {
                        [
                            TelemetryKitTypedEvents.EventSchema(
                                name: "Shop.Paywall.shown",
                                parameters: [
                                    TelemetryKitTypedEvents.EventSchema.Parameter(
                                        key: "reason",
                                        type: TelemetryKitTypedEvents.TypedEventCoding.parameterType(String.self),
                                        isOptional: false
                                    )
                                ],
                                floatValue: nil
                            ),
                            TelemetryKitTypedEvents.EventSchema(
                                name: "Shop.Paywall.closed",
                                parameters: [],
                                floatValue: nil
                            )
                        ]
                    }
                    package var eventName: Swift.String {
                        switch self {
                        case .shown:
                            "Shop.Paywall.shown"
                        case .closed:
                            "Shop.Paywall.closed"
                        }
                    }
                    package var parameters: TelemetryKit.EventParameters {
                        switch self {
                        case .shown(let value0):
                            var values = [Swift.String: TelemetryKit.PayloadValue](minimumCapacity: 1)
                            values["reason"] = TelemetryKitTypedEvents.TypedEventCoding.payloadValue(value0)
                            return TelemetryKit.EventParameters(values)
                        case .closed:
                            return TelemetryKit.EventParameters()
                        }
                    }
                }
                """
        )
    }
}
#endif
