#if TypedEvents
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
public import TelemetryKitTypedEvents

enum Plan: String, Sendable {
    case free
    case pro
}

enum Seats: Int, Sendable {
    case one = 1
    case five = 5
}

/// Every supported parameter type, a renamed key, optionals, a float value, and members that
/// are not parameters.
@TelemetryEvent("Checkout.completed")
struct CheckoutCompleted {
    let items: Int
    let plan: Plan
    @EventParameter("coupon.code") let coupon: String?
    let seats: Seats
    let express: Bool
    let placedAt: Date
    let orderID: UUID
    let receipt: URL?
    let discount: Double
    @EventFloatValue let total: Double

    static let currency = "USD"
    var summary: String { "\(items) items" }
}

@TelemetryEvent
enum Checkout {
    case started(items: Int)
    case completed(items: Int, coupon: String?, floatValue: Double)
    @EventName("Checkout.abandonedCart") case abandoned
}

@TelemetryEvent struct AppLaunched {}

enum Onboarding {
    @TelemetryEvent struct StepShown {
        let step: Int
    }
}

@TelemetryEvent("Paywall")
public enum PaywallEvent {
    case shown(reason: String, price: Double?)
}

extension CheckoutCompleted {
    /// The example used across the tests.
    static let example = CheckoutCompleted(
        items: 3,
        plan: .pro,
        coupon: "SPRING",
        seats: .five,
        express: true,
        placedAt: Date(timeIntervalSince1970: 1_718_460_000.25),
        orderID: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
        receipt: URL(string: "https://example.com/receipts/42"),
        discount: 0.5,
        total: 19.99
    )

    /// The untyped call's parameters for ``example``, in declaration order: a dictionary's
    /// member order (and so the JSON's) follows its insertion order and capacity, which the
    /// expansion shares with a literal written in that order.
    static let exampleParameters: EventParameters = [
        "items": 3, "plan": "pro", "coupon.code": "SPRING", "seats": 5, "express": true,
        "placedAt": "2024-06-15T14:00:00.250Z", "orderID": "E621E1F8-C36C-495A-93FC-0C247A3E6E5F",
        "receipt": "https://example.com/receipts/42", "discount": 0.5,
    ]
}
#endif
