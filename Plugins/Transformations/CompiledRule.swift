import TelemetryKit

/// A ``Rule`` of ``Condition``s laid out for evaluation per event: one array of nodes in
/// depth-first order, each condition's variable and prepared test stored in its node.
///
/// Evaluating the rule itself would follow a pointer per step (the enum's indirect boxes,
/// each condition's storage object) and retain and release each; here a transformation's
/// conditions are one contiguous block, read in place.
struct CompiledRule: Sendable {
    struct Node: Sendable {
        enum Kind: Sendable {
            case condition, and, or, not
        }

        let kind: Kind
        /// The index just after this node's subtree.
        var end: Int
        /// For conditions: the variable and its test (combinators: unused).
        let variable: VariableAccessor
        let test: Condition.Test
        /// The condition, to name it in errors (combinators hold a placeholder).
        let condition: Condition

        /// A combinator's node; `end` is set once its children are appended.
        static func combinator(_ kind: Kind) -> Node {
            Node(kind: kind, end: 0, variable: "", test: .defined, condition: placeholder)
        }

        private static let placeholder = Condition.isDefined(variable: "")
    }

    private let nodes: [Node]

    /// The layout of `rule`; no rule (nil) always holds.
    init(_ rule: Rule<Condition>?) {
        var nodes: [Node] = []
        if let rule { Self.append(rule, to: &nodes) }
        self.nodes = nodes
    }

    private static func append(_ rule: Rule<Condition>, to nodes: inout [Node]) {
        let index = nodes.count
        let children: [Rule<Condition>]
        switch rule {
        case .just(let condition):
            nodes.append(
                Node(
                    kind: .condition,
                    end: index + 1,
                    variable: condition.variable,
                    test: condition.storage.test,
                    condition: condition
                )
            )
            return
        case .and(let rules):
            nodes.append(.combinator(.and))
            children = rules
        case .or(let rules):
            nodes.append(.combinator(.or))
            children = rules
        case .not(let rule):
            nodes.append(.combinator(.not))
            children = [rule]
        }
        for child in children { append(child, to: &nodes) }
        nodes[index].end = nodes.count
    }

    /// Whether the rule holds for `event`; `.and([])` holds, `.or([])` does not.
    ///
    /// - Throws: ``NonNumericValueError`` when a numeric condition it reaches meets a
    ///   variable that is not a number.
    func isMet(by event: borrowing Event) throws(NonNumericValueError) -> Bool {
        nodes.isEmpty ? true : try isMet(at: 0, event)
    }

    /// Nodes are read in place from the immutable array (no copy of a node, its test or its
    /// strings per evaluation).
    private func isMet(at index: Int, _ event: borrowing Event) throws(NonNumericValueError) -> Bool {
        switch nodes[index].kind {
        case .condition:
            // The value first: reading the node for it while its test is in use would make the
            // compiler copy the test.
            guard let value = event.value(for: nodes[index].variable) else {
                return nodes[index].test.holdsForMissingValue
            }
            if let result = nodes[index].test.holds(for: value) { return result }
            throw NonNumericValueError(condition: nodes[index].condition, value: value)
        case .and, .or:
            // The first child that decides the combination (false for `and`, true for `or`)
            // ends it; without one, `and` holds and `or` does not.
            let deciding = nodes[index].kind == .or
            var child = index + 1
            while child < nodes[index].end {
                if try isMet(at: child, event) == deciding { return deciding }
                child = nodes[child].end
            }
            return !deciding
        case .not:
            return try !isMet(at: index + 1, event)
        }
    }
}
