/// A boolean combination of items, such as ``Condition``s.
///
/// ```swift
/// .setConditions(.and([
///     .just(Condition.equals(ignoreCase: true, variable: "event_name", target: "purchase")),
///     .not(.just(Condition.isDefined(variable: "coupon"))),
/// ]))
/// ```
///
/// `.and([])` holds and `.or([])` does not; the JSON form rejects empty children.
public indirect enum Rule<Item: Sendable>: Sendable {
    /// Holds when the item holds.
    case just(Item)
    /// Holds when every child holds (evaluated in order, stopping at the first that does not).
    case and([Rule<Item>])
    /// Holds when any child holds (evaluated in order, stopping at the first that does).
    case or([Rule<Item>])
    /// Holds when the child does not.
    case not(Rule<Item>)

    /// Evaluates the rule, asking `isMet` about each item it needs.
    public func evaluate<Failure: Error>(_ isMet: (Item) throws(Failure) -> Bool) throws(Failure) -> Bool {
        switch self {
        case .just(let item):
            return try isMet(item)
        case .and(let children):
            for child in children where try !child.evaluate(isMet) { return false }
            return true
        case .or(let children):
            for child in children where try child.evaluate(isMet) { return true }
            return false
        case .not(let child):
            return try !child.evaluate(isMet)
        }
    }
}

extension Rule: Equatable where Item: Equatable {}
extension Rule: Hashable where Item: Hashable {}
