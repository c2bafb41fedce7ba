public import TelemetryKit
import TelemetryKitSupport

extension Condition {
    /// Whether the condition holds for `event`.
    ///
    /// - Throws: ``NonNumericValueError`` when a numeric operator meets a variable that is not
    ///   a number; the transformation then skips the event.
    public func isMet(by event: Event) throws(NonNumericValueError) -> Bool {
        guard let value = event.value(for: storage.variable) else { return storage.test.holdsForMissingValue }
        if let result = storage.test.holds(for: value) { return result }
        throw NonNumericValueError(condition: self, value: value)
    }
}

extension Rule where Item == Condition {
    /// Whether the rule holds for `event`.
    ///
    /// For one-off checks: the rule is laid out for evaluation on each call (transformations
    /// do that once, when they are made).
    ///
    /// - Throws: ``NonNumericValueError`` when a numeric condition it reaches meets a
    ///   variable that is not a number.
    public func isMet(by event: Event) throws(NonNumericValueError) -> Bool {
        try CompiledRule(self).isMet(by: event)
    }

    /// Every condition of the rule, depth first.
    public var conditions: [Condition] {
        switch self {
        case .just(let condition): return [condition]
        case .and(let children), .or(let children): return children.flatMap(\.conditions)
        case .not(let child): return child.conditions
        }
    }
}

/// A numeric condition met a variable that is not a number.
public struct NonNumericValueError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The condition that could not be decided.
    public var condition: Condition
    /// The variable's value.
    public var value: PayloadValue

    public init(condition: Condition, value: PayloadValue) {
        self.condition = condition
        self.value = value
    }

    public var description: String {
        "operator '\(condition.operator.rawValue)' needs a number, but '\(condition.variable)' is '\(value.stringValue)'"
    }
}

// MARK: - Prepared tests

extension Condition {
    enum Comparison: Sendable {
        case greater, greaterOrEqual, less, lessOrEqual
    }

    /// A compiled regular expression.
    ///
    /// `Regex` is not `Sendable`; it is kept in a `Locked` and only used inside `withLock`.
    struct CompiledRegex: Sendable {
        let regex: Locked<Regex<AnyRegexOutput>>

        init(pattern: String) throws(ConditionError) {
            do {
                regex = Locked(try Regex(pattern))
            } catch {
                throw .invalidRegularExpression(pattern: pattern, message: "\(error)")
            }
        }

        func matches(_ string: String) -> Bool {
            regex.withLock { string.contains($0) }
        }
    }

    /// The operator and filter, prepared for evaluation: a struct read in place where it is
    /// evaluated (an enum with payloads would be copied, payloads and all, per evaluation).
    struct Test: Sendable {
        enum Kind: Sendable {
            case defined, notDefined, empty, text, compare, regex
        }

        let kind: Kind
        /// For `empty` and `text`: the result is inverted.
        let negated: Bool
        /// For `compare`: the filter. For `text` with `equals`: the filter as a number, if it
        /// is one.
        let number: Double?
        /// For `text` with `equals`: the filter as an integer, so large integers compare exactly.
        let integer: Int64?
        let comparison: Comparison
        /// For `text`: the prepared filter.
        let pattern: StringMatching.Pattern
        let regex: CompiledRegex?

        init(
            kind: Kind,
            negated: Bool = false,
            number: Double? = nil,
            integer: Int64? = nil,
            comparison: Comparison = .greater,
            pattern: StringMatching.Pattern = .none,
            regex: CompiledRegex? = nil
        ) {
            self.kind = kind
            self.negated = negated
            self.number = number
            self.integer = integer
            self.comparison = comparison
            self.pattern = pattern
            self.regex = regex
        }

        static let defined = Test(kind: .defined)
        static let notDefined = Test(kind: .notDefined)

        static func empty(negated: Bool) -> Test {
            Test(kind: .empty, negated: negated)
        }

        static func compare(_ number: Double, _ comparison: Comparison) -> Test {
            Test(kind: .compare, number: number, comparison: comparison)
        }

        init(operator op: Operator, filter: String?) throws(ConditionError) {
            switch op {
            case .isDefined: self = .defined
            case .isNotDefined: self = .notDefined
            case .isEmpty: self = .empty(negated: false)
            case .isNotEmpty: self = .empty(negated: true)
            default:
                guard let filter else { throw .missingFilter(op) }
                switch op {
                case .greaterThan, .greaterThanOrEqual, .lessThan, .lessThanOrEqual:
                    guard let number = NumberParsing.number(filter) else { throw .filterNotANumber(op, filter) }
                    let comparison: Comparison
                    switch op {
                    case .greaterThan: comparison = .greater
                    case .greaterThanOrEqual: comparison = .greaterOrEqual
                    case .lessThan: comparison = .less
                    default: comparison = .lessOrEqual
                    }
                    self = .compare(number, comparison)
                case .regularExpression:
                    self = Test(kind: .regex, regex: try CompiledRegex(pattern: filter))
                default:
                    self = Test.text(op, filter)
                }
            }
        }

        /// Whether the test holds when the event has no such variable: only `isNotDefined`.
        @inline(__always)
        var holdsForMissingValue: Bool { kind == .notDefined }

        /// Whether the test holds for a variable's `value`; nil when that cannot be decided: a
        /// numeric operator met a value that is not a number.
        ///
        /// Not throwing and inlined, so that the test is read in place where it is stored.
        @inline(__always)
        func holds(for value: PayloadValue) -> Bool? {
            switch kind {
            case .defined:
                return true
            case .notDefined:
                return false
            case .empty:
                let isEmpty: Bool
                if case .string(let string) = value { isEmpty = string.isEmpty } else { isEmpty = false }
                return isEmpty != negated
            case .text:
                if let number {
                    if let integer, case .int(let valueInteger) = value { return (valueInteger == integer) != negated }
                    if let valueNumber = NumberParsing.number(value) { return (valueNumber == number) != negated }
                }
                let result: Bool
                if case .string(let string) = value {
                    result = pattern.matches(string)
                } else {
                    result = pattern.matches(value.stringValue)
                }
                return result != negated
            case .compare:
                guard let number, let valueNumber = NumberParsing.number(value) else { return nil }
                switch comparison {
                case .greater: return valueNumber > number
                case .greaterOrEqual: return valueNumber >= number
                case .less: return valueNumber < number
                case .lessOrEqual: return valueNumber <= number
                }
            case .regex:
                guard let regex else { return false }
                return regex.matches(value.stringValue)
            }
        }

        /// The test for a string operator (any operator but presence, numeric and regex).
        static func text(_ op: Operator, _ filter: String) -> Test {
            let kind: StringMatching.Kind
            var ignoreCase = false
            var negated = false
            switch op {
            case .equals: kind = .equals
            case .equalsIgnoreCase: (kind, ignoreCase) = (.equals, true)
            case .doesNotEqual: (kind, negated) = (.equals, true)
            case .doesNotEqualIgnoreCase: (kind, ignoreCase, negated) = (.equals, true, true)
            case .contains: kind = .contains
            case .containsIgnoreCase: (kind, ignoreCase) = (.contains, true)
            case .doesNotContain: (kind, negated) = (.contains, true)
            case .doesNotContainIgnoreCase: (kind, ignoreCase, negated) = (.contains, true, true)
            case .startsWith: kind = .prefix
            case .startsWithIgnoreCase: (kind, ignoreCase) = (.prefix, true)
            case .doesNotStartWith: (kind, negated) = (.prefix, true)
            case .doesNotStartWithIgnoreCase: (kind, ignoreCase, negated) = (.prefix, true, true)
            case .endsWith: kind = .suffix
            case .endsWithIgnoreCase: (kind, ignoreCase) = (.suffix, true)
            case .doesNotEndWith: (kind, negated) = (.suffix, true)
            default: (kind, ignoreCase, negated) = (.suffix, true, true)
            }
            let number = kind == .equals ? NumberParsing.number(filter) : nil
            return Test(
                kind: .text,
                negated: negated,
                number: number,
                integer: number == nil ? nil : Int64(filter),
                pattern: StringMatching.Pattern(kind: kind, filter: filter, ignoreCase: ignoreCase)
            )
        }
    }
}

/// Number parsing for conditions: finite, decimal numbers only (no hex, `nan` or `inf`).
enum NumberParsing {
    static func number(_ value: PayloadValue) -> Double? {
        switch value {
        case .int(let value): return Double(value)
        case .double(let value): return value.isFinite ? value : nil
        case .string(let value): return number(value)
        case .bool: return nil
        }
    }

    static func number(_ string: String) -> Double? {
        guard !string.isEmpty else { return nil }
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "."), UInt8(ascii: "-"), UInt8(ascii: "+"),
                UInt8(ascii: "e"), UInt8(ascii: "E"):
                continue
            default:
                return nil
            }
        }
        guard let number = Double(string), number.isFinite else { return nil }
        return number
    }
}
