import TelemetryKit

/// Runs async operations one after another, in submission order.
final class TaskChain: Sendable {
    private let tail = Locked<Task<Void, Never>?>(nil)

    /// Schedules `operation` after every earlier one.
    @discardableResult
    func enqueue(_ operation: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        tail.withLock { tail in
            let previous = tail
            let task = Task {
                await previous?.value
                await operation()
            }
            tail = task
            return task
        }
    }

    /// Runs `operation` after every earlier one and waits for it.
    func run(_ operation: @escaping @Sendable () async -> Void) async {
        await enqueue(operation).value
    }

    /// Waits for everything scheduled so far.
    func drain() async {
        await tail.current?.value
    }
}
