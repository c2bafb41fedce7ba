import TelemetryKit

/// Runs async operations one after another, in the order they were submitted.
///
/// Used where an operation awaits storage or the intake and a later operation must not
/// overtake it (opt-out switches, persisting snapshots, a processor's releases and writes).
///
/// ```swift
/// let writes = SerialTaskQueue()
/// writes.enqueue { await storage.set(snapshot, forKey: "state") }   // later writes wait
/// ```
package final class SerialTaskQueue: Sendable {
    private let tail = Locked<Task<Void, Never>?>(nil)

    package init() {}

    /// Runs `operation` after every earlier one finished, and returns when it finished.
    package func run(_ operation: @escaping @Sendable () async -> Void) async {
        await enqueue(operation).value
    }

    /// Schedules `operation` after every earlier one, without waiting.
    ///
    /// - Parameter priority: the operation's task priority (nil: the caller's). Work that can
    ///   wait gets a lower one, so it does not hold up a thread that more urgent tasks need;
    ///   a task that later waits for it raises it again.
    @discardableResult
    package func enqueue(
        priority: TaskPriority? = nil,
        _ operation: @escaping @Sendable () async -> Void
    ) -> Task<Void, Never> {
        tail.withLock { tail in
            let previous = tail
            let task = Task(priority: priority) {
                await previous?.value
                await operation()
            }
            tail = task
            return task
        }
    }

    /// Waits until the queue is idle: everything scheduled so far finished, and so did
    /// whatever those operations (or others meanwhile) scheduled before it ran dry.
    package func drain() async {
        while let last = tail.current {
            await last.value
            let idle = tail.withLock { tail -> Bool in
                guard tail == last else { return false }
                tail = nil
                return true
            }
            if idle { return }
        }
    }
}
