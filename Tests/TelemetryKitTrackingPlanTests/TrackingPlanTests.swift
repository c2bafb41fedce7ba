import TelemetryKit
import TelemetryKitTrackingPlan
import TelemetryKitTypedEvents
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The plan as `@TelemetryEvent` would write it for a checkout struct and a screen enum,
/// written by hand here so that these tests need no macro.
struct CheckoutCompletedByHand: TypedEvent {
    let items: Int
    let coupon: String?
    let total: Double

    static var eventSchemas: [EventSchema] {
        [
            EventSchema(
                name: "Checkout.completed",
                parameters: [
                    EventSchema.Parameter(key: "items", type: .int),
                    EventSchema.Parameter(key: "coupon", type: .string, isOptional: true),
                ],
                floatValue: EventSchema.FloatValue(isOptional: false)
            )
        ]
    }
    var eventName: String { "Checkout.completed" }
    var parameters: EventParameters {
        var parameters: EventParameters = ["items": items]
        if let coupon { parameters["coupon"] = coupon }
        return parameters
    }
    var floatValue: Double? { total }
}

enum ScreenByHand: TypedEvent {
    case shown(at: Date, id: UUID, link: URL?)

    static var eventSchemas: [EventSchema] {
        [
            EventSchema(
                name: "Screen.shown",
                parameters: [
                    EventSchema.Parameter(key: "at", type: .date),
                    EventSchema.Parameter(key: "id", type: .uuid),
                    EventSchema.Parameter(key: "link", type: .url, isOptional: true),
                ]
            )
        ]
    }
    var eventName: String { "Screen.shown" }
    var parameters: EventParameters {
        switch self {
        case .shown(let at, let id, let link):
            var parameters: EventParameters = ["at": at, "id": id]
            if let link { parameters["link"] = link.absoluteString }
            return parameters
        }
    }
}

struct TrackingPlanTests {
    let plan = TrackingPlan(CheckoutCompletedByHand.self, ScreenByHand.self)

    @Test func listsEveryEventOfTheTypesInOrder() {
        #expect(plan.events.map(\.name) == ["Checkout.completed", "Screen.shown"])
        #expect(plan.schemas(named: "Screen.shown").first?.parameters.map(\.type) == [.date, .uuid, .url])
        #expect(plan.schemas(named: "Missing").isEmpty)
    }

    @Test func anEventAsThePlanSaysHasNoViolations() {
        let event = CheckoutCompletedByHand(items: 3, coupon: nil, total: 19.99)
        #expect(plan.violations(name: event.eventName, parameters: event.parameters.values, floatValue: 19.99) == [])
        let screen = ScreenByHand.shown(
            at: Date(timeIntervalSince1970: 1_700_000_000),
            id: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
            link: URL(string: "https://example.com/a")
        )
        #expect(plan.violations(name: "Screen.shown", parameters: screen.parameters.values, floatValue: nil) == [])
    }

    @Test func namesEachWayAnEventBreaksThePlan() {
        let violations = plan.violations(
            name: "Checkout.completed",
            parameters: ["coupon": .int(5), "item": .int(3)],
            floatValue: nil
        )
        #expect(
            violations == [
                .missingParameter(event: "Checkout.completed", key: "items"),
                .wrongType(event: "Checkout.completed", key: "coupon", expected: .string, found: "int"),
                .unexpectedParameter(event: "Checkout.completed", key: "item"),
                .missingFloatValue(event: "Checkout.completed"),
            ]
        )
        #expect(
            violations.map(\.description) == [
                "'Checkout.completed' is missing its parameter 'items'",
                "'Checkout.completed' sends 'coupon' as int; the tracking plan says string",
                "'Checkout.completed' has the parameter 'item', which the tracking plan does not list",
                "'Checkout.completed' is missing its float value",
            ]
        )
        #expect(
            plan.violations(
                name: "Screen.shown",
                parameters: ["at": .string("yesterday"), "id": .string("42")],
                floatValue: 1
            )
                == [
                    .wrongType(event: "Screen.shown", key: "at", expected: .date, found: "string"),
                    .wrongType(event: "Screen.shown", key: "id", expected: .uuid, found: "string"),
                    .unexpectedFloatValue(event: "Screen.shown"),
                ]
        )
        #expect(
            plan.violations(name: "Checkout.complete", parameters: [:], floatValue: nil) == [
                .unknownEvent(name: "Checkout.complete")
            ]
        )
    }

    @Test func sdkEventsAndMetadataKeysAreNeverViolations() {
        #expect(
            plan.violations(name: "TelemetryDeck.Session.started", parameters: ["x": .int(1)], floatValue: nil) == []
        )
        #expect(
            plan.violations(
                name: "Checkout.completed",
                parameters: ["items": .int(1), "TelemetryDeck.Device.platform": .string("Linux")],
                floatValue: 2
            ) == []
        )
    }

    @Test func commonParametersMayRideOnEveryEventWithTheirType() {
        let withDefaults = TrackingPlan(
            CheckoutCompletedByHand.self,
            commonParameters: [EventSchema.Parameter(key: "plan", type: .string, isOptional: true)]
        )
        #expect(
            withDefaults.violations(
                name: "Checkout.completed",
                parameters: ["items": .int(1), "plan": .string("pro")],
                floatValue: 1
            )
                == []
        )
        #expect(
            withDefaults.violations(
                name: "Checkout.completed",
                parameters: ["items": .int(1), "plan": .bool(true)],
                floatValue: 1
            )
                == [.wrongType(event: "Checkout.completed", key: "plan", expected: .string, found: "bool")]
        )
    }

    @Test func doubleParametersAcceptIntegers() {
        let plan = TrackingPlan(events: [EventSchema(name: "Paid", parameters: [.init(key: "amount", type: .double)])])
        #expect(plan.violations(name: "Paid", parameters: ["amount": .int(3)], floatValue: nil) == [])
        #expect(
            plan.violations(name: "Paid", parameters: ["amount": .string("3")], floatValue: nil)
                == [.wrongType(event: "Paid", key: "amount", expected: .double, found: "string")]
        )
    }

    @Test func exportsSortedPrettyJSONAndReadsItBack() throws {
        let small = TrackingPlan(events: [
            EventSchema(
                name: "Paid",
                parameters: [.init(key: "amount", type: .double, isOptional: true)],
                floatValue: .init()
            )
        ])
        let json = String(decoding: try small.jsonData(), as: UTF8.self)
        #expect(
            json == """
                {
                  "commonParameters" : [

                  ],
                  "events" : [
                    {
                      "floatValue" : {
                        "isOptional" : false
                      },
                      "name" : "Paid",
                      "parameters" : [
                        {
                          "isOptional" : true,
                          "key" : "amount",
                          "type" : "double"
                        }
                      ]
                    }
                  ]
                }
                """
        )
        #expect(try TrackingPlan(jsonData: Data(json.utf8)) == small)
        #expect(try TrackingPlan(jsonData: try plan.jsonData()) == plan)
    }

    @Test func aDamagedPlanIsATypedError() {
        #expect(throws: DecodingError.self) {
            try TrackingPlan(
                jsonData: Data(#"{"events": [{"name": "A", "parameters": [{"key": "k", "type": "money"}]}]}"#.utf8)
            )
        }
        #expect(throws: DecodingError.self) { try TrackingPlan(jsonData: Data("[]".utf8)) }
    }

    @Test func theSameEventListedTwiceIsKeptOnce() {
        let twice = TrackingPlan(CheckoutCompletedByHand.self, CheckoutCompletedByHand.self)
        #expect(twice.events.count == 1)
    }
}
