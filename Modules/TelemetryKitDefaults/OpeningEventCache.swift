import Dispatch
import TelemetryKitSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The default queue while its SQLite file is still being opened on a thread of its own:
/// every call waits for the opening, then goes to the opened cache.
///
/// Why the client gets this instead of the opened cache: opening the file (creating it on an
/// app's first launch) is the longest single piece of `Telemetry.initialize` in a new
/// process, about as long as building the transmitter, the storage and the processors on
/// the caller's thread. Were the client built only once it is open, its construction, the
/// processors' start and the processing of their first events would follow it; with this
/// they run meanwhile, and only the first append waits.
/// `initialize` still throws when the file cannot be opened: it asks ``opened()`` before the
/// app's buffered events are handed over (see `Telemetry.initialize`).
///
/// Once open, a call costs one lock's read more than a call to the cache itself.
final class OpeningEventCache: CallerExecutorAppending {
    private let opening: OpeningOffThread<SQLiteEventCache>

    /// Starts opening the cache that `open` makes, on a thread of its own.
    init(_ open: @escaping @Sendable () throws(TelemetryError) -> SQLiteEventCache) {
        opening = OpeningOffThread(open)
    }

    /// The opened cache, or the error that stopped the opening (`.unusableDataDirectory`).
    nonisolated(nonsending) func opened() async throws(TelemetryError) -> SQLiteEventCache {
        try await opening.result().get()
    }

    func append(_ events: [Event]) async throws {
        try await opened().append(events)
    }

    nonisolated(nonsending) func appendOnCallersExecutor(_ events: [Event], callerWaits: Bool) async throws {
        try await opened().appendOnCallersExecutor(events, callerWaits: callerWaits)
    }

    func peek(limit: Int) async throws -> [Event] {
        try await opened().peek(limit: limit)
    }

    func remove(ids: [UUID]) async throws {
        try await opened().remove(ids: ids)
    }

    func removeAll() async throws {
        try await opened().removeAll()
    }

    /// Nothing is queued in a cache that could not be opened.
    func count() async -> Int {
        guard let cache = try? await opened() else { return 0 }
        return await cache.count()
    }

    /// Nothing was evicted from a cache that could not be opened.
    func evictedCount() async -> Int {
        guard let cache = try? await opened() else { return 0 }
        return await cache.evictedCount()
    }
}

/// A value made on a dispatch thread, started at once (blocking file work, kept off the
/// caller's thread and the cooperative pool), and awaited through `result()` by any number of
/// callers, before or after it is made.
///
/// The thread is a serial queue's of its own, not a global queue's: the global queues share
/// as many threads as there are cores, and in a launch those are busy (Swift's cooperative
/// pool runs on them), so the opening sometimes waited for one to come free; a queue of its
/// own gets a thread at once.
final class OpeningOffThread<Value: Sendable>: Sendable {
    /// A waiter is kept as the closure that resumes it, not as its `CheckedContinuation`: a
    /// state that names `CheckedContinuation<…, Never>` made the opening thread's first use of
    /// it search the process's conformance records for `Never: Error` in every launch, even
    /// when nobody waited, which is the rule in a launch.
    private enum State {
        case running(waiters: [@Sendable (Made<Value>) -> Void])
        case made(Made<Value>)
    }

    private let state = Locked(State.running(waiters: []))

    init(_ make: @escaping @Sendable () throws(TelemetryError) -> Value) {
        DispatchQueue(label: "TelemetryKit.opening", qos: .userInitiated).async { [state] in
            let result = Made { () throws(TelemetryError) in try make() }
            let waiters = state.withLock { state -> [@Sendable (Made<Value>) -> Void] in
                defer { state = .made(result) }
                if case .running(let waiters) = state { return waiters }
                return []
            }
            for resume in waiters {
                resume(result)
            }
        }
    }

    /// The value or the error, once made; on the caller's executor.
    nonisolated(nonsending) func result() async -> Made<Value> {
        // Made already: no suspension, whose resumption would wait for a thread.
        if case .made(let result) = state.current { return result }
        return await withCheckedContinuation { continuation in
            let made = state.withLock { state -> Made<Value>? in
                switch state {
                case .made(let result):
                    return result
                case .running(var waiters):
                    waiters.append { continuation.resume(returning: $0) }
                    state = .running(waiters: waiters)
                    return nil
                }
            }
            if let made { continuation.resume(returning: made) }
        }
    }
}

/// A default made, or the error that stopped it: a `Result` without the `Failure: Error`
/// requirement, which made the runtime search its conformance tables (in every launch) for
/// `TelemetryError`'s conformance the first time the type was used.
enum Made<Value> {
    case value(Value)
    case failure(TelemetryError)

    init(_ make: () throws(TelemetryError) -> Value) {
        do {
            self = .value(try make())
        } catch {
            self = .failure(error)
        }
    }

    func get() throws(TelemetryError) -> Value {
        switch self {
        case .value(let value): return value
        case .failure(let error): throw error
        }
    }
}

extension Made: Sendable where Value: Sendable {}
