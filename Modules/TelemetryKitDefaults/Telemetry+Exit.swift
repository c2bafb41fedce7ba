import Dispatch
import TelemetryKitSupport

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

extension Telemetry {
    /// The longest the process waits at exit for the events it accepted to reach the queue
    /// (seconds).
    ///
    /// `Telemetry.event(...)` and `signal(...)` return before their event is queued. When the
    /// process returns from `main` or calls `exit` while the SDK runs, an `atexit` handler
    /// (registered by the first `initialize`) waits until every event accepted so far is in the
    /// durable queue, and the processors' state is on disk, but no longer than this: the next
    /// launch delivers them. What is not queued by then is counted in an error log and lost.
    /// The wait cannot finish if the exiting thread is the one the SDK's work needs (`exit`
    /// called from inside a processor, or a processor that needs the main actor while the main
    /// thread exits); it then ends at this deadline.
    ///
    /// Not covered: a process killed by a signal or ended with `_exit`, and a `TelemetryClient`
    /// built by hand (call its `shutdown()`). Calling ``terminate()`` before exiting is still the
    /// way to also deliver what is queued.
    public static let exitCommitTimeout: TimeInterval = 2

    /// Registers ``commitAcceptedEventsAtExit()`` with `atexit`: a static `let` is initialized
    /// once per process, so the handler is registered once however often `initialize` runs.
    static let exitHandler: Void = {
        atexit { Telemetry.commitAcceptedEventsAtExit() }
    }()

    /// Runs on the exiting thread, inside `exit`: waits, at most ``exitCommitTimeout``, for the
    /// running client's intake to hand every accepted event to the queue and for the storage
    /// to be written, or logs what is lost.
    ///
    /// Why blocking is safe here: the work runs on Swift's cooperative pool, which keeps running
    /// while one thread is in `exit`, and the wait has a deadline, so a thread the work would
    /// need (this one) costs the deadline, never a hang. Nothing here takes a lock the exiting
    /// thread could hold: the facade's lock is held only inside its own short calls.
    static func commitAcceptedEventsAtExit() {
        let (client, buffered) = state.withLock { ($0.client, $0.gathered.events.count) }
        guard let client else {
            if buffered > 0 {
                StandardErrorLogger().log(
                    .error,
                    "exit: \(buffered) event(s) sent while the SDK was not initialized are lost"
                )
            }
            return
        }
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            await client.waitUntilProcessed()
            await client.storage.flush()
            done.signal()
        }
        guard done.wait(timeout: .now() + exitCommitTimeout) == .timedOut else { return }
        // The waiting marker may still be among the pending items.
        let lost = max(0, client.queuedItemCount - 1)
        client.logger.log(
            .error,
            "exit: accepted events did not reach the queue within \(exitCommitTimeout) s; at least \(lost) are lost. "
                + "Await Telemetry.send(...) or Telemetry.terminate() before the program ends"
        )
    }
}
