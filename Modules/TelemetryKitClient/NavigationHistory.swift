import TelemetryKitSupport

/// Remembers the last navigation destination, for `navigationPathChanged(to:)`.
package final class NavigationHistory: Sendable {
    private let last = Locked<String?>(nil)

    package init() {}

    /// The destination of the last path change, if any.
    package var previousDestination: String? { last.current }

    /// Records `destination` as the latest one and returns the one before (or "").
    package func advance(to destination: String) -> String {
        last.withLock { last in
            let previous = last ?? ""
            last = destination
            return previous
        }
    }

    /// Forgets the last destination (the app erases its data).
    package func forget() {
        last.set(nil)
    }

    /// Records `destination` as the latest one.
    package func record(_ destination: String) {
        last.set(destination)
    }
}
