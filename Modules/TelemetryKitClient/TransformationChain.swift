public import TelemetryKit

// Running transformations is the runtime's part (the client runs them after the processors
// and the dispatcher per destination); a transformation plugin needs only the protocol. A
// transformation's own tests run a chain the same way.

extension Array where Element == any EventTransformation {
    /// The transformations that run for `destination`, in execution order
    /// (ascending `order`, ties in registration order).
    public func ordered(for destination: String?) -> [any EventTransformation] {
        enumerated()
            .filter { $0.element.scope.applies(to: destination) }
            .sorted { lhs, rhs in
                lhs.element.order != rhs.element.order
                    ? lhs.element.order < rhs.element.order : lhs.offset < rhs.offset
            }
            .map(\.element)
    }

    /// Runs these transformations on `event` in array order, as the client does. Nil when one
    /// dropped it.
    /// Runs on the caller's executor (`nonisolated(nonsending)`), like the client's `send`.
    nonisolated(nonsending)
        public func run(on event: consuming Event, destination: String?) async -> Event?
    {
        var current = event
        // By index: the elements are used in place (iterating would copy each existential).
        for index in indices {
            // Handed over (no copy); `current` is set again from the result.
            guard let next = await self[index].transform(consume current, destination: destination) else {
                return nil
            }
            current = next
        }
        return current
    }
}
