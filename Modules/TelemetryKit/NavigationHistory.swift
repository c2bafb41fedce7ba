/// Remembers the last navigation destination, for `navigationPathChanged(to:)`.
public final class NavigationHistory: Sendable {
    private let last = Locked<String?>(nil)

    public init() {}

    /// The destination of the last path change, if any.
    public var previousDestination: String? { last.current }

    /// Records `destination` as the latest one and returns the one before (or "").
    public func advance(to destination: String) -> String {
        last.withLock { last in
            let previous = last ?? ""
            last = destination
            return previous
        }
    }

    /// Records `destination` as the latest one.
    public func record(_ destination: String) {
        last.set(destination)
    }
}
