#if TypedEvents
import SwiftSyntaxMacrosGenericTestSupport
import Testing

/// Every diagnostic of the typed-event macros: its message, where it points, and its fix-it.
struct TelemetryEventDiagnosticTests {
    @Test func aClassIsRefusedWithAFixItToStruct() {
        assertExpansion(
            """
            @TelemetryEvent
            class Checkout {
                let items: Int
            }
            """,
            expandedSource: """
                class Checkout {
                    let items: Int
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@TelemetryEvent applies to a struct or an enum, not to a class: an event is a value",
                    line: 2,
                    column: 1,
                    fixIts: [FixItSpec(message: "make it a struct")]
                )
            ],
            applyFixIts: ["make it a struct"],
            fixedSource: """
                @TelemetryEvent
                struct Checkout {
                    let items: Int
                }
                """
        )
    }

    @Test func anActorAndAProtocolAreRefused() {
        assertExpansion(
            """
            @TelemetryEvent
            actor Checkout {}
            """,
            expandedSource: """
                actor Checkout {}
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@TelemetryEvent applies to a struct or an enum, not to an actor: an event is a value",
                    line: 2,
                    column: 1,
                    fixIts: [FixItSpec(message: "make it a struct")]
                )
            ]
        )
        assertExpansion(
            """
            @TelemetryEvent
            protocol Checkout {}
            """,
            expandedSource: """
                protocol Checkout {}
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@TelemetryEvent applies to a struct or an enum, not to a protocol: an event is a value",
                    line: 2,
                    column: 1
                )
            ]
        )
    }

    @Test func anEmptyNameIsRefusedWithTheDerivedNameAsFixIt() {
        assertExpansion(
            """
            @TelemetryEvent("")
            struct CheckoutCompleted {}
            """,
            expandedSource: """
                struct CheckoutCompleted {}
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "the event name is empty",
                    line: 1,
                    column: 17,
                    fixIts: [FixItSpec(message: "use 'CheckoutCompleted'")]
                )
            ],
            applyFixIts: ["use 'CheckoutCompleted'"],
            fixedSource: """
                @TelemetryEvent("CheckoutCompleted")
                struct CheckoutCompleted {}
                """
        )
    }

    @Test func aReservedNameIsRefusedWithTheNameOutsideTheNamespaceAsFixIt() {
        assertExpansion(
            """
            @TelemetryEvent("TelemetryDeck.checkout")
            struct CheckoutCompleted {}
            """,
            expandedSource: """
                struct CheckoutCompleted {}
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'TelemetryDeck.checkout' is in the reserved 'TelemetryDeck.' namespace, "
                        + "which belongs to the SDK's own events",
                    line: 1,
                    column: 17,
                    fixIts: [FixItSpec(message: "use 'checkout'")]
                )
            ],
            applyFixIts: ["use 'checkout'"],
            fixedSource: """
                @TelemetryEvent("checkout")
                struct CheckoutCompleted {}
                """
        )
    }

    @Test func aBadNameAndABadPropertyAreBothReported() {
        assertExpansion(
            """
            @TelemetryEvent("TelemetryDeck.checkout")
            struct Checkout {
                let items: [Int]
            }
            """,
            expandedSource: """
                struct Checkout {
                    let items: [Int]
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'TelemetryDeck.checkout' is in the reserved 'TelemetryDeck.' namespace, "
                        + "which belongs to the SDK's own events",
                    line: 1,
                    column: 17,
                    fixIts: [FixItSpec(message: "use 'checkout'")]
                ),
                DiagnosticSpec(
                    message: "'items' has the type '[Int]', which an event parameter cannot have (an array); "
                        + "use String, Int, Double, Bool, Date, UUID, URL, or an enum with String or Int raw values",
                    line: 3,
                    column: 16
                ),
            ]
        )
    }

    @Test func aNameThatIsNotALiteralIsRefused() {
        assertExpansion(
            """
            @TelemetryEvent(checkoutName)
            struct CheckoutCompleted {}
            """,
            expandedSource: """
                struct CheckoutCompleted {}
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "the event name must be a string literal, so that the tracking plan knows it at compile time",
                    line: 1,
                    column: 17
                )
            ]
        )
    }

    @Test func reservedAndEmptyKeysAreRefusedWithFixIts() {
        assertExpansion(
            """
            @TelemetryEvent
            struct Paid {
                @EventParameter("TelemetryDeck.amount") let amount: Int
                @EventParameter("") let currency: String
            }
            """,
            expandedSource: """
                struct Paid {
                    let amount: Int
                    let currency: String
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "the key 'TelemetryDeck.amount' of 'amount' is in the reserved 'TelemetryDeck.' namespace, "
                        + "which belongs to the SDK's metadata",
                    line: 3,
                    column: 21,
                    fixIts: [FixItSpec(message: "use 'amount'")]
                ),
                DiagnosticSpec(
                    message: "the parameter key of 'currency' is empty",
                    line: 4,
                    column: 21,
                    fixIts: [FixItSpec(message: "use 'currency'")]
                ),
            ],
            applyFixIts: ["use 'amount'", "use 'currency'"],
            fixedSource: """
                @TelemetryEvent
                struct Paid {
                    @EventParameter("amount") let amount: Int
                    @EventParameter("currency") let currency: String
                }
                """
        )
    }

    @Test func twoPropertiesUnderOneKeyAreRefused() {
        assertExpansion(
            """
            @TelemetryEvent
            struct Paid {
                let amount: Int
                @EventParameter("amount") let total: Int
            }
            """,
            expandedSource: """
                struct Paid {
                    let amount: Int
                    let total: Int
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'total' and 'amount' are both sent as the key 'amount'; one would overwrite the other",
                    line: 4,
                    column: 35,
                    fixIts: [FixItSpec(message: "use 'total'")]
                )
            ],
            applyFixIts: ["use 'total'"],
            fixedSource: """
                @TelemetryEvent
                struct Paid {
                    let amount: Int
                    @EventParameter("total") let total: Int
                }
                """
        )
    }

    @Test func unsupportedKindsOfTypeAreRefused() {
        let reasons = [
            ("[Int]", "an array"), ("[String: Int]", "a dictionary"), ("(Int, Int)", "a tuple"),
            ("() -> Void", "a closure"), ("any Error", "an opaque or existential type"),
            ("Int??", "an optional of an optional"), ("Set<Int>", "a collection"),
        ]
        for (type, reason) in reasons {
            assertExpansion(
                """
                @TelemetryEvent
                struct Sample {
                    let value: \(type)
                }
                """,
                expandedSource: """
                    struct Sample {
                        let value: \(type)
                    }
                    """,
                diagnostics: [
                    DiagnosticSpec(
                        message: "'value' has the type '\(type)', which an event parameter cannot have (\(reason)); "
                            + "use String, Int, Double, Bool, Date, UUID, URL, or an enum with String or Int raw values",
                        line: 3,
                        column: 16
                    )
                ]
            )
        }
    }

    @Test func anImplicitlyUnwrappedOptionalGetsAFixItToOptional() {
        assertExpansion(
            """
            @TelemetryEvent
            struct Sample {
                let value: Int!
            }
            """,
            expandedSource: """
                struct Sample {
                    let value: Int!
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message:
                        "'value' is implicitly unwrapped; an event parameter is either optional (left out when nil) or not",
                    line: 3,
                    column: 16,
                    fixIts: [FixItSpec(message: "make it optional")]
                )
            ],
            applyFixIts: ["make it optional"],
            fixedSource: """
                @TelemetryEvent
                struct Sample {
                    let value: Int?
                }
                """
        )
    }

    @Test func aPropertyWithoutATypeGetsTheLiteralsTypeAsFixIt() {
        assertExpansion(
            """
            @TelemetryEvent
            struct Sample {
                var count = 3
                var started = makeDate()
            }
            """,
            expandedSource: """
                struct Sample {
                    var count = 3
                    var started = makeDate()
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "'count' needs an explicit type: the macro reads parameter types from the declaration",
                    line: 3,
                    column: 9,
                    fixIts: [FixItSpec(message: "add ': Int'")]
                ),
                DiagnosticSpec(
                    message: "'started' needs an explicit type: the macro reads parameter types from the declaration",
                    line: 4,
                    column: 9
                ),
            ],
            applyFixIts: ["add ': Int'"],
            fixedSource: """
                @TelemetryEvent
                struct Sample {
                    var count: Int = 3
                    var started = makeDate()
                }
                """
        )
    }

    @Test func floatValuesMustBeOneDouble() {
        assertExpansion(
            """
            @TelemetryEvent
            struct Paid {
                @EventFloatValue let amount: Int
                @EventFloatValue let total: Double
                @EventFloatValue let tax: Double
                @EventFloatValue @EventParameter("fee") let fee: Double
            }
            """,
            expandedSource: """
                struct Paid {
                    let amount: Int
                    let total: Double
                    let tax: Double
                    let fee: Double
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "the float value 'amount' has the type 'Int'; an event's float value is a Double",
                    line: 3,
                    column: 34
                ),
                DiagnosticSpec(
                    message: "'tax' is a second @EventFloatValue ('total' is the first); an event has one float value",
                    line: 5,
                    column: 5
                ),
                DiagnosticSpec(
                    message: "'fee' is the float value, which is sent outside the parameters and has no key",
                    line: 6,
                    column: 22
                ),
            ]
        )
    }

    @Test func propertiesNamedAfterTheProtocolsMembersAndLazyOnesAreRefused() {
        assertExpansion(
            """
            @TelemetryEvent
            struct Sample {
                let parameters: String
                lazy var total: Int = 3
            }
            """,
            expandedSource: """
                struct Sample {
                    let parameters: String
                    lazy var total: Int = 3
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "a property named 'parameters' would replace TypedEvent's own 'parameters'; rename it "
                        + #"and keep its key with @EventParameter("parameters")"#,
                    line: 3,
                    column: 9
                ),
                DiagnosticSpec(
                    message:
                        "'total' is lazy, so reading it would mutate the event; make it a stored or computed property",
                    line: 4,
                    column: 10
                ),
            ]
        )
    }

    @Test func enumCasesNeedLabelsDistinctNamesAndAllowedNames() {
        assertExpansion(
            """
            @TelemetryEvent
            enum Checkout {
                case started(Int)
                case completed(items: Int)
                @EventName("Checkout.completed") case finished
                @EventName("TelemetryDeck.x") case other
                case paid(floatValue: Int)
            }
            """,
            expandedSource: """
                enum Checkout {
                    case started(Int)
                    case completed(items: Int)
                    case finished
                    case other
                    case paid(floatValue: Int)
                }
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "associated value 1 of 'started' has no label; the label is the parameter key",
                    line: 3,
                    column: 18
                ),
                DiagnosticSpec(
                    message: "the cases 'finished' and 'completed' both send the event 'Checkout.completed'",
                    line: 5,
                    column: 43
                ),
                DiagnosticSpec(
                    message:
                        "'TelemetryDeck.x' is in the reserved 'TelemetryDeck.' namespace, which belongs to the SDK's own events",
                    line: 6,
                    column: 16,
                    fixIts: [FixItSpec(message: "use 'x'")]
                ),
                DiagnosticSpec(
                    message: "the float value 'paid.floatValue' has the type 'Int'; an event's float value is a Double",
                    line: 7,
                    column: 27
                ),
            ]
        )
    }

    @Test func anEnumWithoutCasesIsRefused() {
        assertExpansion(
            """
            @TelemetryEvent
            enum Nothing {}
            """,
            expandedSource: """
                enum Nothing {}
                """,
            diagnostics: [
                DiagnosticSpec(message: "'Nothing' has no cases, so it sends no events", line: 2, column: 6)
            ]
        )
    }

    @Test func markersOutsideTheirPlaceAreRefused() {
        assertExpansion(
            """
            @EventParameter("key") func send() {}
            @EventFloatValue struct Amount {}
            @EventName("Name") var name: String
            """,
            expandedSource: """
                func send() {}
                struct Amount {}
                var name: String
                """,
            diagnostics: [
                DiagnosticSpec(
                    message: "@EventParameter applies to a property of a @TelemetryEvent type",
                    line: 1,
                    column: 1
                ),
                DiagnosticSpec(
                    message: "@EventFloatValue applies to a property of a @TelemetryEvent type",
                    line: 2,
                    column: 1
                ),
                DiagnosticSpec(message: "@EventName applies to a case of a @TelemetryEvent type", line: 3, column: 1),
            ]
        )
    }
}
#endif
