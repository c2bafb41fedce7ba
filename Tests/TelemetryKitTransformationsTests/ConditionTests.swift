import TelemetryKit
import TelemetryKitTransformations
import Testing

/// One row of the operator table: `variable` ("v" in the payload, or missing) against `filter`.
struct OperatorCase: Sendable, CustomTestStringConvertible {
    var op: Condition.Operator
    var value: PayloadValue?
    var filter: String?
    var expected: Bool

    init(_ op: Condition.Operator, _ value: PayloadValue?, _ filter: String, _ expected: Bool) {
        self.op = op
        self.value = value
        self.filter = filter
        self.expected = expected
    }

    /// A presence test (no filter).
    init(_ op: Condition.Operator, _ value: PayloadValue?, _ expected: Bool) {
        self.op = op
        self.value = value
        self.filter = nil
        self.expected = expected
    }

    var testDescription: String {
        let value = self.value.map { String(reflecting: $0) } ?? "missing"
        return "\(op.rawValue): \(value) vs \(filter ?? "-") → \(expected)"
    }
}

let operatorCases: [OperatorCase] = [
    // presence
    OperatorCase(.isDefined, "x", true),
    OperatorCase(.isDefined, "", true),
    OperatorCase(.isDefined, nil, false),
    OperatorCase(.isNotDefined, "x", false),
    OperatorCase(.isNotDefined, nil, true),
    OperatorCase(.isEmpty, "", true),
    OperatorCase(.isEmpty, "a", false),
    OperatorCase(.isEmpty, .int(0), false),
    OperatorCase(.isEmpty, nil, false),
    OperatorCase(.isNotEmpty, "a", true),
    OperatorCase(.isNotEmpty, "", false),
    OperatorCase(.isNotEmpty, .bool(false), true),
    OperatorCase(.isNotEmpty, nil, false),
    // equals: strings, numbers (compared as numbers when both parse), booleans
    OperatorCase(.equals, "purchase", "purchase", true),
    OperatorCase(.equals, "Purchase", "purchase", false),
    OperatorCase(.equals, .int(5), "5", true),
    OperatorCase(.equals, .double(5.0), "5", true),
    OperatorCase(.equals, "5.0", "5", true),
    OperatorCase(.equals, "5", "5.5", false),
    OperatorCase(.equals, .int(9_007_199_254_740_993), "9007199254740993", true),
    OperatorCase(.equals, .int(9_007_199_254_740_993), "9007199254740992", false),
    OperatorCase(.equals, .bool(true), "true", true),
    OperatorCase(.equals, "0x10", "16", false),
    OperatorCase(.equals, nil, "purchase", false),
    OperatorCase(.equalsIgnoreCase, "Purchase", "purchase", true),
    OperatorCase(.equalsIgnoreCase, "PURCHASE", "Purchase", true),
    OperatorCase(.equalsIgnoreCase, "purchases", "purchase", false),
    OperatorCase(.equalsIgnoreCase, .int(5), "5.0", true),
    OperatorCase(.equalsIgnoreCase, nil, "purchase", false),
    OperatorCase(.doesNotEqual, "a", "b", true),
    OperatorCase(.doesNotEqual, "a", "a", false),
    OperatorCase(.doesNotEqual, "A", "a", true),
    OperatorCase(.doesNotEqual, .int(5), "5.0", false),
    OperatorCase(.doesNotEqual, nil, "a", false),
    OperatorCase(.doesNotEqualIgnoreCase, "A", "a", false),
    OperatorCase(.doesNotEqualIgnoreCase, "a", "b", true),
    OperatorCase(.doesNotEqualIgnoreCase, nil, "a", false),
    // contains
    OperatorCase(.contains, "hello world", "lo w", true),
    OperatorCase(.contains, "Hello", "hell", false),
    OperatorCase(.contains, .int(12345), "234", true),
    OperatorCase(.contains, nil, "a", false),
    OperatorCase(.containsIgnoreCase, "Hello", "hELL", true),
    OperatorCase(.containsIgnoreCase, "abc", "d", false),
    OperatorCase(.containsIgnoreCase, nil, "a", false),
    // non-ASCII and CR LF take the Unicode path: "\r\n" is one Character
    OperatorCase(.containsIgnoreCase, "Zürich", "ÜRI", true),
    OperatorCase(.equalsIgnoreCase, "ÄRGER", "ärger", true),
    OperatorCase(.contains, "a\r\nb", "\n", false),
    OperatorCase(.endsWith, "a\r\nb", "\nb", false),
    OperatorCase(.contains, "abc", "", true),
    OperatorCase(.doesNotContain, "abc", "d", true),
    OperatorCase(.doesNotContain, "abc", "b", false),
    OperatorCase(.doesNotContain, "ABC", "b", true),
    OperatorCase(.doesNotContain, nil, "d", false),
    OperatorCase(.doesNotContainIgnoreCase, "ABC", "b", false),
    OperatorCase(.doesNotContainIgnoreCase, "abc", "d", true),
    OperatorCase(.doesNotContainIgnoreCase, nil, "d", false),
    // starts with
    OperatorCase(.startsWith, "Screen.shown", "Screen.", true),
    OperatorCase(.startsWith, "screen.shown", "Screen.", false),
    OperatorCase(.startsWith, .int(2024), "20", true),
    OperatorCase(.startsWith, nil, "Screen.", false),
    OperatorCase(.startsWithIgnoreCase, "screen.shown", "SCREEN.", true),
    OperatorCase(.startsWithIgnoreCase, "x", "y", false),
    OperatorCase(.startsWithIgnoreCase, nil, "x", false),
    OperatorCase(.doesNotStartWith, "abc", "b", true),
    OperatorCase(.doesNotStartWith, "abc", "a", false),
    OperatorCase(.doesNotStartWith, "Abc", "a", true),
    OperatorCase(.doesNotStartWith, nil, "b", false),
    OperatorCase(.doesNotStartWithIgnoreCase, "Abc", "a", false),
    OperatorCase(.doesNotStartWithIgnoreCase, "abc", "b", true),
    OperatorCase(.doesNotStartWithIgnoreCase, nil, "b", false),
    // ends with
    OperatorCase(.endsWith, "user@example.com", "@example.com", true),
    OperatorCase(.endsWith, "USER@EXAMPLE.COM", "@example.com", false),
    OperatorCase(.endsWith, .double(2.5), ".5", true),
    OperatorCase(.endsWith, nil, ".com", false),
    OperatorCase(.endsWithIgnoreCase, "USER@EXAMPLE.COM", "@example.com", true),
    OperatorCase(.endsWithIgnoreCase, "a", "b", false),
    OperatorCase(.endsWithIgnoreCase, nil, "b", false),
    OperatorCase(.doesNotEndWith, "abc", "c", false),
    OperatorCase(.doesNotEndWith, "abc", "b", true),
    OperatorCase(.doesNotEndWith, "ABC", "c", true),
    OperatorCase(.doesNotEndWith, nil, "c", false),
    OperatorCase(.doesNotEndWithIgnoreCase, "ABC", "c", false),
    OperatorCase(.doesNotEndWithIgnoreCase, "abc", "x", true),
    OperatorCase(.doesNotEndWithIgnoreCase, nil, "x", false),
    // numeric comparisons (ints, doubles, numeric strings)
    OperatorCase(.greaterThan, .int(10), "5", true),
    OperatorCase(.greaterThan, .int(5), "5", false),
    OperatorCase(.greaterThan, "7.5", "7", true),
    OperatorCase(.greaterThan, .double(-1), "0", false),
    OperatorCase(.greaterThan, nil, "0", false),
    OperatorCase(.greaterThanOrEqual, .int(5), "5", true),
    OperatorCase(.greaterThanOrEqual, .double(4.99), "5", false),
    OperatorCase(.greaterThanOrEqual, nil, "5", false),
    OperatorCase(.lessThan, .int(3), "5", true),
    OperatorCase(.lessThan, .int(5), "5", false),
    OperatorCase(.lessThan, "-2", "-1", true),
    OperatorCase(.lessThan, nil, "5", false),
    OperatorCase(.lessThanOrEqual, .int(5), "5.0", true),
    OperatorCase(.lessThanOrEqual, .int(6), "5", false),
    OperatorCase(.lessThanOrEqual, nil, "5", false),
    // regular expressions match anywhere in the string form
    OperatorCase(.regularExpression, "user@example.com", #"^[^@]+@example\.com$"#, true),
    OperatorCase(.regularExpression, "user@example.org", #"^[^@]+@example\.com$"#, false),
    OperatorCase(.regularExpression, .int(2024), #"^20\d\d$"#, true),
    OperatorCase(.regularExpression, "order-123-x", #"\d{3}"#, true),
    OperatorCase(.regularExpression, nil, ".*", false),
]

@Suite struct ConditionTests {
    @Test(arguments: operatorCases)
    func operatorEvaluates(_ row: OperatorCase) throws {
        let condition = try Condition(variable: "v", operator: row.op, filter: row.filter)
        let event = makeEvent(payload: row.value.map { ["v": $0, "other": "x"] } ?? ["other": "x"])
        #expect(try condition.isMet(by: event) == row.expected)
    }

    @Test(arguments: operatorCases)
    func operatorEvaluatesFromJSON(_ row: OperatorCase) throws {
        var object: JSONValue = ["variable": ["key": "v"], "operator": .string(row.op.rawValue.uppercased())]
        if let filter = row.filter, case .object(var members) = object {
            members["filter"] = ["value": .string(filter)]
            object = .object(members)
        }
        let rule = try Rule<Condition>(json: object)
        let event = makeEvent(payload: row.value.map { ["v": $0] } ?? [:])
        #expect(try rule.isMet(by: event) == row.expected)
    }

    @Test func tableCoversEveryOperator() {
        #expect(Set(operatorCases.map(\.op)) == Set(Condition.Operator.allCases))
        #expect(Condition.Operator.allCases.count == 25)
    }

    @Test func eventNameAddressesTheEventName() throws {
        let condition = Condition.equals(ignoreCase: true, variable: "event_name", target: "purchase")
        #expect(try condition.isMet(by: makeEvent("Purchase")))
        #expect(try !condition.isMet(by: makeEvent("refund", payload: ["event_name": "purchase"])))
    }

    @Test func swiftConstructorsMatchTheJSONOperators() throws {
        let pairs: [(Condition, Condition.Operator, String?)] = [
            (.isDefined(variable: "v"), .isDefined, nil),
            (.isNotDefined(variable: "v"), .isNotDefined, nil),
            (.isEmpty(variable: "v"), .isEmpty, nil),
            (.isNotEmpty(variable: "v"), .isNotEmpty, nil),
            (.equals(variable: "v", target: "a"), .equals, "a"),
            (.equals(ignoreCase: true, variable: "v", target: "a"), .equalsIgnoreCase, "a"),
            (.doesNotEqual(variable: "v", target: "a"), .doesNotEqual, "a"),
            (.doesNotEqual(ignoreCase: true, variable: "v", target: "a"), .doesNotEqualIgnoreCase, "a"),
            (.contains(variable: "v", string: "a"), .contains, "a"),
            (.contains(ignoreCase: true, variable: "v", string: "a"), .containsIgnoreCase, "a"),
            (.doesNotContain(variable: "v", string: "a"), .doesNotContain, "a"),
            (.doesNotContain(ignoreCase: true, variable: "v", string: "a"), .doesNotContainIgnoreCase, "a"),
            (.startsWith(variable: "v", prefix: "a"), .startsWith, "a"),
            (.startsWith(ignoreCase: true, variable: "v", prefix: "a"), .startsWithIgnoreCase, "a"),
            (.doesNotStartWith(variable: "v", prefix: "a"), .doesNotStartWith, "a"),
            (.doesNotStartWith(ignoreCase: true, variable: "v", prefix: "a"), .doesNotStartWithIgnoreCase, "a"),
            (.endsWith(variable: "v", suffix: "a"), .endsWith, "a"),
            (.endsWith(ignoreCase: true, variable: "v", suffix: "a"), .endsWithIgnoreCase, "a"),
            (.doesNotEndWith(variable: "v", suffix: "a"), .doesNotEndWith, "a"),
            (.doesNotEndWith(ignoreCase: true, variable: "v", suffix: "a"), .doesNotEndWithIgnoreCase, "a"),
            (.isGreaterThan(variable: "v", number: 2.5), .greaterThan, "2.5"),
            (.isGreaterThan(orEqual: true, variable: "v", number: 2.5), .greaterThanOrEqual, "2.5"),
            (.isLessThan(variable: "v", number: 2.5), .lessThan, "2.5"),
            (.isLessThan(orEqual: true, variable: "v", number: 2.5), .lessThanOrEqual, "2.5"),
            (try .regularExpression(variable: "v", regex: "^a"), .regularExpression, "^a"),
        ]
        #expect(Set(pairs.map(\.1)) == Set(Condition.Operator.allCases))
        for (condition, op, filter) in pairs {
            #expect(condition == (try Condition(variable: "v", operator: op, filter: filter)))
        }
    }

    @Test(arguments: [PayloadValue.string("abc"), .bool(true), .string("0x10"), .string("nan")])
    func numericOperatorOnANonNumberCannotBeDecided(_ value: PayloadValue) {
        let condition = Condition.isGreaterThan(variable: "v", number: 5)
        #expect(throws: NonNumericValueError(condition: condition, value: value)) {
            try condition.isMet(by: makeEvent(payload: ["v": value]))
        }
    }

    @Test func invalidFiltersAreTypedErrors() {
        #expect(throws: ConditionError.filterNotANumber(.greaterThan, "ten")) {
            try Condition(variable: "v", operator: .greaterThan, filter: "ten")
        }
        #expect(throws: ConditionError.missingFilter(.equals)) {
            try Condition(variable: "v", operator: .equals)
        }
        #expect {
            try Condition.regularExpression(variable: "v", regex: "a(")
        } throws: { error in
            guard case .invalidRegularExpression(let pattern, _) = error as? ConditionError else { return false }
            return pattern == "a("
        }
    }

    @Test func presenceOperatorsIgnoreAFilter() throws {
        let condition = try Condition(variable: "v", operator: .isDefined, filter: "ignored")
        #expect(condition.filter == nil)
        #expect(condition == .isDefined(variable: "v"))
    }
}
