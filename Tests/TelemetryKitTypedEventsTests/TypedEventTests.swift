#if TypedEvents
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import TelemetryKitTypedEvents
import TelemetryKitTrackingPlan
import Testing

/// What the expanded macro sends and declares.
struct TypedEventTests {
    @Test func aStructSendsItsNameKeysAndFloatValue() {
        let event = CheckoutCompleted.example

        #expect(event.eventName == "Checkout.completed")
        #expect(event.parameters == CheckoutCompleted.exampleParameters)
        #expect(event.floatValue == 19.99)
    }

    @Test func aNilOptionalIsLeftOut() {
        var event = CheckoutCompleted.example
        event = CheckoutCompleted(
            items: event.items,
            plan: .free,
            coupon: nil,
            seats: .one,
            express: false,
            placedAt: event.placedAt,
            orderID: event.orderID,
            receipt: nil,
            discount: 0,
            total: 0
        )

        #expect(
            event.parameters.keys.sorted() == ["discount", "express", "items", "orderID", "placedAt", "plan", "seats"]
        )
        #expect(event.parameters.values["plan"] == .string("free"))
        #expect(event.parameters.values["seats"] == .int(1))
    }

    @Test func anEnumSendsOneEventPerCase() {
        #expect(Checkout.started(items: 2).eventName == "Checkout.started")
        #expect(Checkout.started(items: 2).parameters == ["items": 2])
        #expect(Checkout.started(items: 2).floatValue == nil)

        let completed = Checkout.completed(items: 2, coupon: nil, floatValue: 9.5)
        #expect(completed.eventName == "Checkout.completed")
        #expect(completed.parameters == ["items": 2])
        #expect(completed.floatValue == 9.5)
        #expect(Checkout.completed(items: 1, coupon: "A", floatValue: 1).parameters == ["items": 1, "coupon": "A"])

        #expect(Checkout.abandoned.eventName == "Checkout.abandonedCart")
        #expect(Checkout.abandoned.parameters.isEmpty)
    }

    @Test func namesWithoutAnArgumentAreTheQualifiedTypeName() {
        #expect(AppLaunched().eventName == "AppLaunched")
        #expect(Onboarding.StepShown(step: 2).eventName == "Onboarding.StepShown")
        #expect(PaywallEvent.shown(reason: "onboarding", price: nil).eventName == "Paywall.shown")
    }

    @Test func schemasListNamesKeysTypesAndOptionality() {
        #expect(
            CheckoutCompleted.eventSchemas == [
                EventSchema(
                    name: "Checkout.completed",
                    parameters: [
                        .init(key: "items", type: .int),
                        .init(key: "plan", type: .string),
                        .init(key: "coupon.code", type: .string, isOptional: true),
                        .init(key: "seats", type: .int),
                        .init(key: "express", type: .bool),
                        .init(key: "placedAt", type: .date),
                        .init(key: "orderID", type: .uuid),
                        .init(key: "receipt", type: .url, isOptional: true),
                        .init(key: "discount", type: .double),
                    ],
                    floatValue: .init(isOptional: false)
                )
            ]
        )
        #expect(
            Checkout.eventSchemas == [
                EventSchema(name: "Checkout.started", parameters: [.init(key: "items", type: .int)]),
                EventSchema(
                    name: "Checkout.completed",
                    parameters: [
                        .init(key: "items", type: .int), .init(key: "coupon", type: .string, isOptional: true),
                    ],
                    floatValue: .init(isOptional: false)
                ),
                EventSchema(name: "Checkout.abandonedCart"),
            ]
        )
    }

    @Test func aTrackingPlanOfTypedEventsAcceptsExactlyTheirEvents() throws {
        let plan = TrackingPlan(CheckoutCompleted.self, Checkout.self, AppLaunched.self)

        #expect(
            plan.events.map(\.name) == [
                "Checkout.completed", "Checkout.started", "Checkout.completed", "Checkout.abandonedCart", "AppLaunched",
            ]
        )
        for event in [CheckoutCompleted.example] as [any TypedEvent] + [Checkout.started(items: 1), Checkout.abandoned]
        {
            #expect(
                plan.violations(
                    name: event.eventName,
                    parameters: event.parameters.values,
                    floatValue: event.floatValue
                ) == []
            )
        }
        // Two types declare "Checkout.completed"; an event matching either one conforms.
        let fromEnum = Checkout.completed(items: 1, coupon: nil, floatValue: 2)
        #expect(plan.violations(name: fromEnum.eventName, parameters: fromEnum.parameters.values, floatValue: 2) == [])
        #expect(
            plan.violations(name: "Checkout.started", parameters: ["items": .double(1.5)], floatValue: nil)
                == [.wrongType(event: "Checkout.started", key: "items", expected: .int, found: "double")]
        )
        #expect(try TrackingPlan(jsonData: plan.jsonData()) == plan)
    }
}
#endif
