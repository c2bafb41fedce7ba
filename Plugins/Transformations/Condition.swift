import TelemetryKit

/// A test of one event variable, used in a transformation's conditions.
///
/// ```swift
/// .setConditions(.just(Condition.equals(ignoreCase: true, variable: "event_name", target: "purchase")))
/// ```
///
/// Semantics:
/// - A missing variable makes every operator except ``Operator/isDefined`` and
///   ``Operator/isNotDefined`` evaluate to "not met".
/// - `equals` and `does_not_equal` compare as numbers when both sides parse as (finite,
///   decimal) numbers, and as strings otherwise; the string form of a number is its payload
///   form (`3`, `2.5`), of a boolean `true`/`false`.
/// - The numeric operators need a number on both sides; a variable that is not a number makes
///   the transformation skip the event (and log a warning once) rather than decide the rule.
/// - `regular_expression` holds when the pattern matches anywhere in the value's string form.
///
/// Filters are checked when the condition is made: a numeric operator needs a number, a
/// regular expression must compile, every operator but the four presence tests needs a filter.
public struct Condition: Sendable, Hashable, CustomStringConvertible {
    /// The parts, in one immutable object: conditions are copied on every evaluation of a
    /// rule, and one reference is cheaper to copy than the parts.
    final class Storage: Sendable {
        let variable: VariableAccessor
        let `operator`: Operator
        let filter: String?
        let test: Test

        init(variable: VariableAccessor, operator: Operator, filter: String?, test: Test) {
            self.variable = variable
            self.operator = `operator`
            self.filter = filter
            self.test = test
        }
    }

    let storage: Storage

    /// The variable tested.
    public var variable: VariableAccessor { storage.variable }
    /// The test applied.
    public var `operator`: Operator { storage.operator }
    /// The value the variable is compared with (nil for the presence tests).
    public var filter: String? { storage.filter }

    /// A condition from its parts, as in the JSON form.
    ///
    /// - Throws: ``ConditionError`` when `filter` is missing, is not a number for a numeric
    ///   operator, or is not a valid regular expression.
    public init(variable: VariableAccessor, operator: Operator, filter: String? = nil) throws(ConditionError) {
        storage = Storage(
            variable: variable,
            operator: `operator`,
            filter: `operator`.requiresFilter ? filter : nil,
            test: try Test(operator: `operator`, filter: filter)
        )
    }

    private init(variable: VariableAccessor, operator: Operator, filter: String?, test: Test) {
        storage = Storage(variable: variable, operator: `operator`, filter: filter, test: test)
    }

    public static func == (lhs: Condition, rhs: Condition) -> Bool {
        lhs.variable == rhs.variable && lhs.operator == rhs.operator && lhs.filter == rhs.filter
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(variable)
        hasher.combine(`operator`)
        hasher.combine(filter)
    }

    public var description: String {
        if let filter { return "\(variable) \(`operator`.rawValue) '\(filter)'" }
        return "\(variable) \(`operator`.rawValue)"
    }
}

// MARK: - Constructors

extension Condition {
    /// Holds when the variable exists.
    public static func isDefined(variable: VariableAccessor) -> Condition {
        Condition(variable: variable, operator: .isDefined, filter: nil, test: .defined)
    }

    /// Holds when the variable does not exist.
    public static func isNotDefined(variable: VariableAccessor) -> Condition {
        Condition(variable: variable, operator: .isNotDefined, filter: nil, test: .notDefined)
    }

    /// Holds when the variable is the empty string.
    public static func isEmpty(variable: VariableAccessor) -> Condition {
        Condition(variable: variable, operator: .isEmpty, filter: nil, test: .empty(negated: false))
    }

    /// Holds when the variable exists and is not the empty string.
    public static func isNotEmpty(variable: VariableAccessor) -> Condition {
        Condition(variable: variable, operator: .isNotEmpty, filter: nil, test: .empty(negated: true))
    }

    /// Holds when the variable equals `target` (as numbers when both are numbers).
    public static func equals(ignoreCase: Bool = false, variable: VariableAccessor, target: String) -> Condition {
        text(ignoreCase ? .equalsIgnoreCase : .equals, variable, target)
    }

    /// Holds when the variable exists and does not equal `target`.
    public static func doesNotEqual(ignoreCase: Bool = false, variable: VariableAccessor, target: String) -> Condition {
        text(ignoreCase ? .doesNotEqualIgnoreCase : .doesNotEqual, variable, target)
    }

    /// Holds when the variable's string form contains `string`.
    public static func contains(ignoreCase: Bool = false, variable: VariableAccessor, string: String) -> Condition {
        text(ignoreCase ? .containsIgnoreCase : .contains, variable, string)
    }

    /// Holds when the variable exists and its string form does not contain `string`.
    public static func doesNotContain(
        ignoreCase: Bool = false,
        variable: VariableAccessor,
        string: String
    )
        -> Condition
    {
        text(ignoreCase ? .doesNotContainIgnoreCase : .doesNotContain, variable, string)
    }

    /// Holds when the variable's string form starts with `prefix`.
    public static func startsWith(ignoreCase: Bool = false, variable: VariableAccessor, prefix: String) -> Condition {
        text(ignoreCase ? .startsWithIgnoreCase : .startsWith, variable, prefix)
    }

    /// Holds when the variable exists and its string form does not start with `prefix`.
    public static func doesNotStartWith(
        ignoreCase: Bool = false,
        variable: VariableAccessor,
        prefix: String
    )
        -> Condition
    {
        text(ignoreCase ? .doesNotStartWithIgnoreCase : .doesNotStartWith, variable, prefix)
    }

    /// Holds when the variable's string form ends with `suffix`.
    public static func endsWith(ignoreCase: Bool = false, variable: VariableAccessor, suffix: String) -> Condition {
        text(ignoreCase ? .endsWithIgnoreCase : .endsWith, variable, suffix)
    }

    /// Holds when the variable exists and its string form does not end with `suffix`.
    public static func doesNotEndWith(
        ignoreCase: Bool = false,
        variable: VariableAccessor,
        suffix: String
    )
        -> Condition
    {
        text(ignoreCase ? .doesNotEndWithIgnoreCase : .doesNotEndWith, variable, suffix)
    }

    /// Holds when the variable is a number greater than (or equal to) `number`.
    public static func isGreaterThan(orEqual: Bool = false, variable: VariableAccessor, number: Double) -> Condition {
        let op: Operator = orEqual ? .greaterThanOrEqual : .greaterThan
        return Condition(
            variable: variable,
            operator: op,
            filter: PayloadValue.double(number).stringValue,
            test: .compare(number, orEqual ? .greaterOrEqual : .greater)
        )
    }

    /// Holds when the variable is a number less than (or equal to) `number`.
    public static func isLessThan(orEqual: Bool = false, variable: VariableAccessor, number: Double) -> Condition {
        let op: Operator = orEqual ? .lessThanOrEqual : .lessThan
        return Condition(
            variable: variable,
            operator: op,
            filter: PayloadValue.double(number).stringValue,
            test: .compare(number, orEqual ? .lessOrEqual : .less)
        )
    }

    /// Holds when `regex` matches somewhere in the variable's string form.
    ///
    /// - Throws: ``ConditionError/invalidRegularExpression(pattern:message:)`` when the
    ///   pattern does not compile.
    public static func regularExpression(
        variable: VariableAccessor,
        regex: String
    ) throws(ConditionError)
        -> Condition
    {
        try Condition(variable: variable, operator: .regularExpression, filter: regex)
    }

    private static func text(_ op: Operator, _ variable: VariableAccessor, _ filter: String) -> Condition {
        Condition(variable: variable, operator: op, filter: filter, test: Test.text(op, filter))
    }
}

// MARK: - Operators

extension Condition {
    /// The operators, named by their JSON form.
    public enum Operator: String, Sendable, Hashable, CaseIterable {
        case isDefined = "defined"
        case isNotDefined = "notdefined"
        case isEmpty = "empty"
        case isNotEmpty = "notempty"
        case equals = "equals"
        case equalsIgnoreCase = "equals_ignore_case"
        case doesNotEqual = "does_not_equal"
        case doesNotEqualIgnoreCase = "does_not_equal_ignore_case"
        case contains = "contains"
        case containsIgnoreCase = "contains_ignore_case"
        case doesNotContain = "does_not_contain"
        case doesNotContainIgnoreCase = "does_not_contain_ignore_case"
        case startsWith = "starts_with"
        case startsWithIgnoreCase = "starts_with_ignore_case"
        case doesNotStartWith = "does_not_start_with"
        case doesNotStartWithIgnoreCase = "does_not_start_with_ignore_case"
        case endsWith = "ends_with"
        case endsWithIgnoreCase = "ends_with_ignore_case"
        case doesNotEndWith = "does_not_end_with"
        case doesNotEndWithIgnoreCase = "does_not_end_with_ignore_case"
        case greaterThan = "greater_than"
        case greaterThanOrEqual = "greater_than_equal_to"
        case lessThan = "less_than"
        case lessThanOrEqual = "less_than_equal_to"
        case regularExpression = "regular_expression"

        /// The operator named `name` in JSON (case-insensitive), or nil.
        public init?(jsonName name: String) {
            self.init(rawValue: name.lowercased())
        }

        /// Whether the operator compares with a filter (all but the presence tests).
        public var requiresFilter: Bool {
            switch self {
            case .isDefined, .isNotDefined, .isEmpty, .isNotEmpty: return false
            default: return true
            }
        }

        /// Whether the operator needs numbers on both sides.
        public var isNumeric: Bool {
            switch self {
            case .greaterThan, .greaterThanOrEqual, .lessThan, .lessThanOrEqual: return true
            default: return false
            }
        }
    }
}

/// Why a ``Condition`` could not be made.
public enum ConditionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The operator compares with a filter, and none was given.
    case missingFilter(Condition.Operator)
    /// A numeric operator was given a filter that is not a number.
    case filterNotANumber(Condition.Operator, String)
    /// The regular expression does not compile.
    case invalidRegularExpression(pattern: String, message: String)

    public var description: String {
        switch self {
        case .missingFilter(let op):
            return "operator '\(op.rawValue)' needs a filter value"
        case .filterNotANumber(let op, let filter):
            return "operator '\(op.rawValue)' needs a numeric filter, got '\(filter)'"
        case .invalidRegularExpression(let pattern, let message):
            return "invalid regular expression '\(pattern)': \(message)"
        }
    }
}
