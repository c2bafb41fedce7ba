import TelemetryKit
import TelemetryKitSupport
import TelemetryKitTesting
import TelemetryKitTransformations
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// (purchase or refund) and not (test_flag defined or (amount < 1 and currency = "xxx" ignoring case))
let nestedRule: Rule<Condition> = .and([
    .or([
        .just(.equals(variable: "event_name", target: "purchase")),
        .just(.equals(variable: "event_name", target: "refund")),
    ]),
    .not(
        .or([
            .just(.isDefined(variable: "test_flag")),
            .and([
                .just(.isLessThan(variable: "amount", number: 1)),
                .just(.equals(ignoreCase: true, variable: "currency", target: "xxx")),
            ]),
        ])
    ),
])

let nestedRuleJSON = """
    {"operator": "and", "children": [
        {"operator": "or", "children": [
            {"variable": {"key": "event_name"}, "operator": "equals", "filter": {"value": "purchase"}},
            {"variable": {"key": "event_name"}, "operator": "equals", "filter": {"value": "refund"}}
        ]},
        {"operator": "not", "children": [
            {"operator": "or", "children": [
                {"variable": {"key": "test_flag"}, "operator": "defined"},
                {"operator": "and", "children": [
                    {"variable": {"key": "amount"}, "operator": "less_than", "filter": {"value": 1}},
                    {"variable": {"key": "currency"}, "operator": "equals_ignore_case", "filter": {"value": "xxx"}}
                ]}
            ]}
        ]}
    ]}
    """

struct NestedCase: Sendable, CustomTestStringConvertible {
    var name: String
    var payload: [String: PayloadValue]
    var expected: Bool
    var testDescription: String { "\(name) \(payload) → \(expected)" }
}

let nestedCases: [NestedCase] = [
    NestedCase(name: "purchase", payload: ["amount": 10, "currency": "USD"], expected: true),
    NestedCase(name: "refund", payload: ["amount": 10], expected: true),
    NestedCase(name: "view", payload: ["amount": 10], expected: false),
    NestedCase(name: "purchase", payload: ["amount": 10, "test_flag": true], expected: false),
    NestedCase(name: "purchase", payload: ["amount": 0.5, "currency": "XXX"], expected: false),
    NestedCase(name: "purchase", payload: ["amount": 0.5, "currency": "USD"], expected: true),
    NestedCase(name: "purchase", payload: [:], expected: true),
]

@Suite struct RuleTests {
    @Test(arguments: nestedCases)
    func nestedRuleFromSwift(_ row: NestedCase) throws {
        #expect(try nestedRule.isMet(by: makeEvent(row.name, payload: row.payload)) == row.expected)
    }

    @Test(arguments: nestedCases)
    func nestedRuleFromJSON(_ row: NestedCase) throws {
        let json = try JSONDecoder().decode(JSONValue.self, from: Data(json: nestedRuleJSON))
        let rule = try Rule<Condition>(json: json)
        #expect(try rule.isMet(by: makeEvent(row.name, payload: row.payload)) == row.expected)
    }

    @Test func jsonAndSwiftFormsAreEqualAndRoundTrip() throws {
        let json = try JSONDecoder().decode(JSONValue.self, from: Data(json: nestedRuleJSON))
        let decoded = try Rule<Condition>(json: json)
        // The JSON filter `1` reads as "1"; the Swift form writes 1.0 as "1.0": same number.
        #expect(try decoded.isMet(by: makeEvent("purchase", payload: ["amount": 0.99, "currency": "xXx"])) == false)
        #expect(try Rule<Condition>(json: nestedRule.json) == nestedRule)
        #expect(
            decoded.conditions.map(\.variable.key) == ["event_name", "event_name", "test_flag", "amount", "currency"]
        )
    }

    @Test func emptyCombinators() throws {
        let event = makeEvent()
        #expect(try Rule<Condition>.and([]).isMet(by: event))
        #expect(try !Rule<Condition>.or([]).isMet(by: event))
    }

    @Test func evaluationStopsEarly() throws {
        let undecidable = Rule<Condition>.just(.isGreaterThan(variable: "amount", number: 1))
        let event = makeEvent(payload: ["amount": "lots"])
        #expect(try Rule.or([.just(.isDefined(variable: "amount")), undecidable]).isMet(by: event))
        #expect(try !Rule.and([.just(.isNotDefined(variable: "amount")), undecidable]).isMet(by: event))
        #expect(throws: NonNumericValueError(condition: .isGreaterThan(variable: "amount", number: 1), value: "lots")) {
            try Rule.and([.just(.isDefined(variable: "amount")), .or([.or([]), .not(undecidable)])]).isMet(by: event)
        }
    }

    /// Random rules, up to four levels deep with children of every size, evaluated as laid out
    /// for transformations (`isMet`) and by a plain recursion over the rule (`evaluate`): the
    /// two agree on every rule and event.
    @Test(arguments: [3, 11, 2024])
    func evaluationAgreesWithAPlainRecursion(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        let leaves: [Condition] = [
            .isDefined(variable: "a"), .isNotDefined(variable: "a"), .equals(variable: "b", target: "x"),
            .startsWith(ignoreCase: true, variable: "b", prefix: "X"), .isLessThan(variable: "n", number: 5),
            .equals(variable: "event_name", target: "purchase"),
        ]
        func rule(depth: Int) -> Rule<Condition> {
            let pick = random.next() % (depth == 0 ? 1 : 4)
            switch pick {
            case 1, 2:
                let children = (0..<Int(random.next() % 4)).map { _ in rule(depth: depth - 1) }
                return pick == 1 ? .and(children) : .or(children)
            case 3: return .not(rule(depth: depth - 1))
            default: return .just(leaves[Int(random.next() % UInt64(leaves.count))])
            }
        }
        let events = [
            makeEvent("purchase", payload: ["a": 1, "b": "x", "n": 3]),
            makeEvent("refund", payload: ["b": "xylophone", "n": 9]),
            makeEvent("purchase", payload: [:]),
        ]
        var holding = 0
        for _ in 0..<300 {
            let candidate = rule(depth: 4)
            for event in events {
                let expected = try candidate.evaluate { (condition) throws(NonNumericValueError) -> Bool in
                    try condition.isMet(by: event)
                }
                #expect(try candidate.isMet(by: event) == expected, "\(candidate)")
                if expected { holding += 1 }
            }
        }
        // Both outcomes occur often (the check is not trivially all true or all false).
        #expect(holding > 150 && holding < 750)
    }
}
