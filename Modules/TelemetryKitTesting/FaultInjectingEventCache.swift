public import TelemetryKit
import TelemetryKitSupport

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// A cache for tests whose appends fail on request, wrapping a working cache.
///
/// A full disk or a locked database cannot be produced on demand; this makes the client's
/// handling of a failing durable append testable. Only `append` fails (the failure the
/// client has to survive); reads and removals go to the wrapped cache. A failed append
/// stores nothing.
///
/// ```swift
/// let cache = FaultInjectingEventCache()
/// cache.failNextAppends(3)     // the next three appends throw, later ones work
/// cache.failAllAppends()       // every append throws…
/// cache.recover()              // …until this
/// ```
public final class FaultInjectingEventCache: EventCaching {
    private enum Fault {
        case none
        case next(Int)
        case always
    }

    private struct State {
        var fault = Fault.none
        var failedAppends = 0
        var attemptedAppendSizes: [Int] = []
    }

    /// The cache that stores what is appended while no fault is set.
    public let base: any EventCaching
    private let state = Locked(State())

    /// Wraps `base` (default: an in-memory cache of a million events).
    public init(wrapping base: any EventCaching = InMemoryEventCache(cacheLimit: 1_000_000)) {
        self.base = base
    }

    /// Makes the next `count` appends throw; later appends work again.
    public func failNextAppends(_ count: Int) {
        state.withLock { $0.fault = count > 0 ? .next(count) : .none }
    }

    /// Makes every append throw until ``recover()``.
    public func failAllAppends() {
        state.withLock { $0.fault = .always }
    }

    /// Lets appends work again.
    public func recover() {
        state.withLock { $0.fault = .none }
    }

    /// How many appends threw so far.
    public var failedAppends: Int { state.withLock { $0.failedAppends } }

    /// How many appends were attempted so far (failed or not).
    public var appendAttempts: Int { state.withLock { $0.attemptedAppendSizes.count } }

    /// How many events each append attempted so far carried, in order (failed or not): shows
    /// how the client groups its appends.
    public var attemptedAppendSizes: [Int] { state.withLock { $0.attemptedAppendSizes } }

    public func append(_ events: [Event]) async throws {
        let fails = state.withLock { state -> Bool in
            state.attemptedAppendSizes.append(events.count)
            switch state.fault {
            case .none:
                return false
            case .next(let count):
                state.fault = count > 1 ? .next(count - 1) : .none
            case .always:
                break
            }
            state.failedAppends += 1
            return true
        }
        if fails {
            throw EventCacheError("injected append failure")
        }
        try await base.append(events)
    }

    public func peek(limit: Int) async throws -> [Event] {
        try await base.peek(limit: limit)
    }

    public func remove(ids: [UUID]) async throws {
        try await base.remove(ids: ids)
    }

    public func count() async -> Int {
        await base.count()
    }

    public func removeAll() async throws {
        try await base.removeAll()
    }

    public func evictedCount() async -> Int {
        await base.evictedCount()
    }
}
