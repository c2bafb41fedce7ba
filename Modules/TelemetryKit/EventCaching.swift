#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A FIFO queue of finalized events waiting for delivery, one per destination.
///
/// The durable point of the SDK: once `append` returns, the event must survive what the
/// backend promises (a process kill for the SQLite and JSON-lines caches).
///
/// ## Implementation requirements
/// - `peek(limit:)` returns the oldest events first, without removing them.
/// - `remove(ids:)` removes exactly those events; unknown ids are ignored.
/// - When `append` would exceed the cache's limit, evict the oldest events and add their
///   number to `evictedCount()`.
/// - An `append` that throws should store none of its events: the client holds them in
///   memory and appends them again later (`DeliveryPolicy.overflowLimit`), so events a
///   failed append did store are stored twice (delivery stays at-least-once; ids tell).
/// - Safe to call from several tasks; calls are expected to be short.
/// - Unreadable stored data is recovered from (recreate, keep the broken file aside, log),
///   never a crash.
public protocol EventCaching: Sendable {
    /// Appends events in order. Durable when this returns.
    func append(_ events: [Event]) async throws
    /// The oldest `limit` events, oldest first.
    func peek(limit: Int) async throws -> [Event]
    /// Removes the events with these ids.
    func remove(ids: [UUID]) async throws
    /// The number of queued events.
    func count() async -> Int
    /// Removes every queued event.
    func removeAll() async throws
    /// The number of events evicted so far to enforce the limit.
    func evictedCount() async -> Int
}

/// A cache whose append can be called on the caller's executor, because it only hands the
/// events to a thread of its own and suspends until that thread has stored them, or makes
/// them durable there without I/O (the SQLite cache's group committer and intake journal).
///
/// Why not `EventCaching.append` itself: a plain `async` implementation of it may do its work
/// where it runs (a custom cache writing a file in its `append`); called on the caller's
/// executor, that work would run on the main actor of an app awaiting an event there. Caches
/// that conform here promise not to; the client then calls them without a hop to the
/// cooperative pool and back, which from the main actor is two thread hand-offs of the four
/// an awaited durable append cost.
///
/// ## Implementation requirements
/// - Never block the calling thread: it may be the main thread. Suspend instead.
/// - Same semantics as `append(_:)`: durable when it returns, in order, all or none stored.
package protocol CallerExecutorAppending: EventCaching {
    /// ``EventCaching/append(_:)``, run on the caller's executor up to the hand-off.
    ///
    /// - Parameter callerWaits: a caller waits for this append (an awaited event), so making
    ///   the events durable without waiting for a commit is worth a little work on its
    ///   executor (the SQLite cache's intake journal); `false` when nobody waits (fire-and-forget
    ///   groups, held events appended again), whose appends are best committed in groups.
    nonisolated(nonsending) func appendOnCallersExecutor(_ events: [Event], callerWaits: Bool) async throws
}

/// Errors reported by event caches.
public struct EventCacheError: Error, Sendable, CustomStringConvertible {
    public var message: String
    public var path: String?

    public init(_ message: String, path: String? = nil) {
        self.message = message
        self.path = path
    }

    public var description: String {
        if let path { return "\(message) (\(path))" }
        return message
    }
}
