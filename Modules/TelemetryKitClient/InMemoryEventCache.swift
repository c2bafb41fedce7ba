import TelemetryKitSupport
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A bounded FIFO event cache in memory. Fast; loses its events when the process ends.
///
/// Use it in tests, previews and short-lived tools; use a durable cache (SQLite, JSON
/// lines) in apps. When full, the oldest events are evicted and counted.
public final class InMemoryEventCache: EventCaching {
    private struct State {
        var storage: [Event] = []
        var head = 0
        var evicted = 0

        var count: Int { storage.count - head }

        mutating func compactIfNeeded() {
            if head > 1024 && head * 2 > storage.count {
                storage.removeFirst(head)
                head = 0
            } else if head == storage.count {
                storage.removeAll(keepingCapacity: true)
                head = 0
            }
        }
    }

    /// The maximum number of events kept.
    public let limit: Int
    private let state = Locked(State())

    /// Creates a cache keeping at most `cacheLimit` events (default 10,000; the oldest are
    /// evicted and counted beyond it).
    public init(cacheLimit: Int = 10_000) {
        self.limit = max(1, cacheLimit)
    }

    /// Stores `events` on the caller's executor: nothing here blocks or suspends.
    nonisolated(nonsending) public func append(_ events: [Event]) async throws {
        appendNow(events)
    }

    /// Synchronous append, for callers that are not in an async context.
    public func appendNow(_ events: [Event]) {
        state.withLock { state in
            state.storage.append(contentsOf: events)
            let overflow = state.count - limit
            if overflow > 0 {
                state.head += overflow
                state.evicted += overflow
                state.compactIfNeeded()
            }
        }
    }

    public func peek(limit: Int) async throws -> [Event] {
        state.withLock { state in
            let end = min(state.storage.count, state.head + max(0, limit))
            return Array(state.storage[state.head..<end])
        }
    }

    public func remove(ids: [UUID]) async throws {
        guard !ids.isEmpty else { return }
        state.withLock { state in
            // Fast path: the dispatcher removes the oldest batch, in order.
            var prefixMatches = ids.count <= state.count
            if prefixMatches {
                for (offset, id) in ids.enumerated() where state.storage[state.head + offset].id != id {
                    prefixMatches = false
                    break
                }
            }
            if prefixMatches {
                state.head += ids.count
            } else {
                let removal = Set(ids)
                let remaining = state.storage[state.head...].filter { !removal.contains($0.id) }
                state.storage = remaining
                state.head = 0
            }
            state.compactIfNeeded()
        }
    }

    public func count() async -> Int {
        state.withLock { $0.count }
    }

    public func removeAll() async throws {
        state.withLock { state in
            state.storage.removeAll()
            state.head = 0
        }
    }

    public func evictedCount() async -> Int {
        state.withLock { $0.evicted }
    }

    // MARK: TelemetryDeck v3's cache calls

    /// Appends one event (TelemetryDeck v3's `add(_:)`), so a v3 test that fills a cache by
    /// hand compiles unchanged.
    public func add(_ event: Event) async {
        appendNow([event])
    }

    /// Appends events in order (TelemetryDeck v3's `add(_:)`).
    public func add(_ events: [Event]) async {
        appendNow(events)
    }

    /// Removes and returns every queued event, oldest first (TelemetryDeck v3's `pop()`): what
    /// a v3 test reads to see what was sent. A client's dispatcher no longer delivers them.
    public func pop() async -> [Event] {
        state.withLock { state in
            let events = Array(state.storage[state.head...])
            state.storage.removeAll(keepingCapacity: true)
            state.head = 0
            return events
        }
    }
}
