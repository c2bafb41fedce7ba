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
/// - Never block the thread `append` is called on when it is `nonisolated(nonsending)`:
///   suspend instead.
/// - Unreadable stored data is recovered from (recreate, keep the broken file aside, log),
///   never a crash.
public protocol EventCaching: Sendable {
    /// Appends events in order. Durable when this returns.
    ///
    /// Called on the caller's executor (`nonisolated(nonsending)`), which may be the main
    /// actor of an app awaiting an event. A cache that only hands the events to a thread of
    /// its own and suspends (the SQLite cache) or stores them without waiting (the in-memory
    /// cache) declares its `append` `nonisolated(nonsending)` too and saves the hops to the
    /// cooperative pool and back. A cache that does blocking work in `append` declares it as
    /// a plain `async` method (or an actor's), and Swift runs it off the caller's executor.
    ///
    /// ```swift
    /// nonisolated(nonsending) func append(_ events: [Event]) async throws {
    ///     try await committer.submit(events)   // suspends; the I/O thread commits
    /// }
    /// ```
    nonisolated(nonsending) func append(_ events: [Event]) async throws
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
