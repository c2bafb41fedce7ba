#if TypedEvents
import Testing

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
            X
            """
        )
    }
}
#endif
