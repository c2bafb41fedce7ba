import TelemetryKit

/// Runs async jobs one after another, in the order they were enqueued, from synchronous code.
///
/// Lifecycle observers are synchronous, but persisting and emitting are async: jobs queued
/// here keep their order (a later save never lands before an earlier one) without anyone
/// waiting for them.
final class SerialWork: Sendable {
    private let tail = Locked<Task<Void, Never>?>(nil)

    /// Queues `job` after every job queued before it.
    func enqueue(_ job: @escaping @Sendable () async -> Void) {
        tail.withLock { tail in
            let previous = tail
            tail = Task {
                await previous?.value
                await job()
            }
        }
    }

    /// Waits until every job queued so far (and any queued meanwhile) has finished.
    func drain() async {
        while let last = tail.current {
            await last.value
            let finished = tail.withLock { tail -> Bool in
                guard tail == last else { return false }
                tail = nil
                return true
            }
            if finished { return }
        }
    }
}
