import TelemetryKitSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// One destination's way into its cache, with a bounded in-memory overflow for the times the
/// cache fails.
///
/// The cache is the durable point, but a disk can be full or a database locked for a while.
/// Logging and counting such a failure would lose events the app was told were accepted, so
/// an append that fails puts its events into this overflow instead, in order. They are
/// appended again before every later append (newer events wait behind them, so the cache
/// stays FIFO), at each delivery round and at shutdown; once the cache works again they
/// leave the overflow. At the bound the oldest events are dropped: counted, and logged once
/// per burst (a burst ends when the overflow is empty again). What is still here when the
/// process ends is lost: memory is not durable.
///
/// A re-append after a failed one may store some events twice if the failed append wrote
/// part of them; delivery is at-least-once and every event carries its `id` for that.
///
/// Cost: while the overflow is empty (the normal case) an append reads one locked flag and
/// calls the cache; nothing is copied.
///
/// Concurrency: only the client's intake adds events, and it has one processing party at a
/// time. Events are added only by that party, so while the overflow is empty no drain can
/// be in flight and the intake appends straight to the cache. Once the overflow holds
/// events, every append and drain takes the turn (an async mutex held across the cache
/// call), so a drain and a later append never interleave.
final class CacheOverflow: Sendable {
    /// What an ``append(_:)`` did.
    struct AppendResult: Sendable {
        /// Events that entered the cache in this call: held events first, then the new ones.
        var cached: Int
        /// The new events are held in memory (the cache failed, or held events could not go first).
        var held: Bool
    }

    /// The overflow's counters, for ``DestinationStats``.
    struct Counters: Sendable {
        /// Events in the overflow now.
        var held = 0
        /// Events that went into the overflow (each once).
        var entered = 0
        /// Events dropped at the bound.
        var dropped = 0
    }

    /// The cache the events are for.
    let cache: any EventCaching
    /// The most events held (at least 1).
    let limit: Int
    private let destinationID: String
    private let logger: any Logging
    private let state: Locked<State>
    /// Held by every append and drain while the overflow holds events (see the type's
    /// concurrency note).
    private let turn = AsyncTurn()

    private struct State {
        /// Held events, oldest first, from `head` on (dropping advances `head`: no copying).
        var storage: [Event] = []
        var head = 0
        /// Events that ever left the front (appended or dropped): the position of `head` in
        /// the stream of held events, which tells a drain what is still its chunk.
        var departed = 0
        var counters = Counters()
        /// Events dropped in the current burst; the burst is logged when its first drop happens.
        var droppedInBurst = 0

        var count: Int { storage.count - head }

        /// The oldest `limit` held events.
        func prefix(_ limit: Int) -> [Event] {
            Array(storage[head..<min(storage.count, head + limit)])
        }

        mutating func removeFirst(_ count: Int) {
            let removed = min(count, self.count)
            head += removed
            departed += removed
            if head == storage.count {
                storage.removeAll(keepingCapacity: storage.count <= 4096)
                head = 0
            } else if head > 1024 && head * 2 > storage.count {
                storage.removeFirst(head)
                head = 0
            }
        }
    }

    init(
        cache: any EventCaching,
        limit: Int,
        destinationID: String,
        logger: any Logging
    ) {
        self.cache = cache
        self.limit = max(1, limit)
        self.destinationID = destinationID
        self.logger = logger
        self.state = Locked(State())
    }

    /// Events held in memory now.
    var count: Int { state.withLock { $0.count } }

    var counters: Counters {
        state.withLock { state in
            var counters = state.counters
            counters.held = state.count
            return counters
        }
    }

    // MARK: Appending

    /// Appends `events` to the cache after the events held before them; holds them when the
    /// cache fails (or the held events cannot go first).
    ///
    /// Only the client's intake calls this (one call at a time). At most ``limit`` events per
    /// call, so that a call never drops its own events and its caller can report them held.
    nonisolated(nonsending) func append(_ events: [Event]) async -> AppendResult {
        if count == 0, !turn.isHeld {
            do {
                try await cache.append(events)
                return AppendResult(cached: events.count, held: false)
            } catch {
                hold(events, failure: error)
                return AppendResult(cached: 0, held: true)
            }
        }
        await turn.acquire()
        defer { turn.release() }
        let drained = await drainHoldingTurn()
        guard count == 0 else {
            hold(events, failure: nil)
            return AppendResult(cached: drained, held: true)
        }
        do {
            try await cache.append(events)
            return AppendResult(cached: drained + events.count, held: false)
        } catch {
            hold(events, failure: error)
            return AppendResult(cached: drained, held: true)
        }
    }

    /// Appends the held events to the cache, oldest first, until one append fails.
    /// Returns how many entered the cache.
    func drain() async -> Int {
        guard count > 0 else { return 0 }
        await turn.acquire()
        defer { turn.release() }
        return await drainHoldingTurn()
    }

    /// The oldest `limit` held events, for a delivery round that sends them straight from
    /// memory because the cache cannot take or give them (see `Dispatcher`).
    func oldest(_ limit: Int) -> [Event] {
        state.withLock { $0.prefix(limit) }
    }

    /// Removes the held events with these ids (delivered or refused straight from memory).
    /// Events a drain moved into the cache meanwhile are no longer here; they are sent again
    /// from the cache later (at-least-once: their ids tell).
    func remove(ids: [UUID]) async {
        await turn.acquire()
        defer { turn.release() }
        let removal = Set(ids)
        state.withLock { state in
            let kept = Array(state.storage[state.head...].filter { !removal.contains($0.id) })
            state.departed += state.count - kept.count
            (state.storage, state.head) = (kept, 0)
            if kept.isEmpty { state.droppedInBurst = 0 }
        }
    }

    /// Empties the overflow (analytics were disabled); returns how many events it discarded.
    func removeAll() async -> Int {
        await turn.acquire()
        defer { turn.release() }
        return state.withLock { state in
            let removed = state.count
            state.removeFirst(removed)
            state.droppedInBurst = 0
            return removed
        }
    }

    private func drainHoldingTurn() async -> Int {
        var moved = 0
        while true {
            // All held events in one append, not chunks of their own: the cache's group
            // committer makes one call one commit, so the events the client appended in
            // groups are not batched a second time here. At most `limit` (the memory bound).
            let (chunk, position) = state.withLock { ($0.prefix(limit), $0.departed) }
            if chunk.isEmpty { break }
            do {
                try await cache.append(chunk)
            } catch {
                logger.log(
                    .debug,
                    "destination '\(destinationID)': caching \(chunk.count) held event(s) failed again: \(error)"
                )
                return moved
            }
            let burst = state.withLock { state -> Int? in
                // Nothing else removes while the turn is held; subtracting what departed
                // meanwhile keeps this exact even if that ever changes.
                state.removeFirst(max(0, chunk.count - (state.departed - position)))
                guard state.count == 0 else { return nil }
                defer { state.droppedInBurst = 0 }
                return state.droppedInBurst
            }
            moved += chunk.count
            if let burst {
                let lost = burst > 0 ? "; \(burst) event(s) were dropped meanwhile (the overflow was full)" : ""
                logger.log(
                    .info,
                    "destination '\(destinationID)': the cache works again: \(moved) event(s) held in memory "
                        + "were cached\(lost)"
                )
            }
        }
        return moved
    }

    /// Adds `events` after the held ones, dropping the oldest beyond ``limit``.
    /// `failure` is the cache's error when the cache was just tried (logged once per outage).
    private func hold(_ events: [Event], failure: (any Error)?) {
        let (wasEmpty, firstDropOfBurst) = state.withLock { state -> (Bool, Bool) in
            let wasEmpty = state.count == 0
            state.storage.append(contentsOf: events)
            state.counters.entered += events.count
            let excess = state.count - limit
            guard excess > 0 else { return (wasEmpty, false) }
            state.removeFirst(excess)
            state.counters.dropped += excess
            let first = state.droppedInBurst == 0
            state.droppedInBurst += excess
            return (wasEmpty, first)
        }
        if wasEmpty {
            let reason = failure.map { ": \($0)" } ?? ""
            logger.log(
                .error,
                "destination '\(destinationID)': caching \(events.count) event(s) failed\(reason); "
                    + "holding them in memory (at most \(limit)) until the cache works again"
            )
        }
        if firstDropOfBurst {
            logger.log(
                .warning,
                "destination '\(destinationID)': the in-memory overflow is full (\(limit) events); "
                    + "the oldest are dropped until the cache works again"
            )
        }
    }
}
