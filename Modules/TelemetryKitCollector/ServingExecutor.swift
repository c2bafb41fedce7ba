#if Tools
import Dispatch

/// Where a collector's accept loop and connections run: a serial dispatch queue of the
/// collector's own, not Swift's shared cooperative pool.
///
/// Why: the collector is the server of tests that run in parallel with hundreds of others, and
/// those run on the cooperative pool, which has one thread per core. A connection's task that
/// became ready was queued behind every test task ready at that moment, and on a 2-core machine
/// it waited long enough (over 10 seconds) for the client's timeout to fire, while the
/// collector itself had nothing else to do. Dispatch runs this queue on a thread outside that
/// pool, so a request is answered in the time it takes to handle it, however busy the process.
///
/// Serial, because what a connection does between suspensions (parse a body, record events,
/// render a page) is short, and one thread is all a test server needs.
@available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *)
final class ServingExecutor: TaskExecutor {
    private let queue: DispatchQueue

    init(label: String) {
        queue = DispatchQueue(label: label)
    }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.async {
            job.runSynchronously(on: self.asUnownedTaskExecutor())
        }
    }
}
#endif
