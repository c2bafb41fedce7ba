public import TelemetryKit

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The behaviour every `EventCaching` backend must show, as runnable checks.
///
/// Give it a factory that makes a fresh, empty cache with a given limit (and, for a durable
/// backend, a closure that opens the same storage again), then run each check — one test per
/// check reads best:
///
/// ```swift
/// let conformance = EventCacheConformance { limit in
///     let url = temporaryDirectory.appending(path: "\(UUID()).sqlite")
///     return .init(try SQLiteEventCache(fileURL: url, limit: limit)) {
///         try SQLiteEventCache(fileURL: url, limit: limit)
///     }
/// }
///
/// @Test(arguments: EventCacheConformance.Check.allCases)
/// func conformance(_ check: EventCacheConformance.Check) async throws {
///     try await conformance.run(check)
/// }
/// ```
///
/// A check throws ``EventCacheConformance/Failure`` describing the first difference. It needs
/// no test framework, so XCTest and Swift Testing suites can both run it.
public struct EventCacheConformance: Sendable {
    /// A cache under test and, for durable caches, how to open its storage again.
    public struct Subject: Sendable {
        public var cache: any EventCaching
        /// Opens a new instance on the same storage (the suite drops its old instance first).
        public var reopen: (@Sendable () async throws -> any EventCaching)?

        public init(_ cache: any EventCaching, reopen: (@Sendable () async throws -> any EventCaching)? = nil) {
            self.cache = cache
            self.reopen = reopen
        }
    }

    /// One behaviour.
    public enum Check: String, CaseIterable, Sendable, CustomStringConvertible {
        /// Events come out oldest first, across several appends; `peek(limit:)` respects its limit.
        case fifoOrder
        /// `peek` leaves the events in place.
        case peekDoesNotRemove
        /// `remove(ids:)` removes exactly those events, the oldest batch or any others.
        case removeByIDs
        /// Unknown ids are ignored, alone or mixed with known ones.
        case removeUnknownIDs
        /// `count()` follows appends and removals.
        case count
        /// `removeAll()` empties the cache, which then works as before.
        case removeAll
        /// Beyond the limit the oldest events are evicted and counted.
        case limitEviction
        /// Every field and payload type comes back equal: strings (non-ASCII, escapes),
        /// integers (Int64 extremes), doubles (also integral ones), booleans, millisecond dates.
        case payloadRoundTrip
        /// A new instance on the same storage sees the same events in the same order
        /// (needs a `reopen` closure).
        case reopenPersistence
        /// Appends from 20 concurrent tasks are all stored, each task's events in its call
        /// order; with a `reopen` closure, a new instance reads them back the same.
        case concurrentAppends

        public var description: String { rawValue }

        /// Whether the check needs ``Subject/reopen``.
        public var requiresReopen: Bool { self == .reopenPersistence }
    }

    /// A difference from the expected behaviour.
    public struct Failure: Error, CustomStringConvertible {
        public var check: Check
        public var message: String

        public var description: String { "EventCaching conformance, \(check): \(message)" }
    }

    private let make: @Sendable (_ limit: Int) async throws -> Subject

    /// Creates the suite.
    /// - Parameter make: returns a fresh, empty cache keeping at most `limit` events.
    public init(make: @escaping @Sendable (_ limit: Int) async throws -> Subject) {
        self.make = make
    }

    /// Runs one check; throws ``Failure`` on the first difference.
    public func run(_ check: Check) async throws {
        var context = CheckContext(check: check)
        switch check {
        case .fifoOrder: try await fifoOrder(&context)
        case .peekDoesNotRemove: try await peekDoesNotRemove(&context)
        case .removeByIDs: try await removeByIDs(&context)
        case .removeUnknownIDs: try await removeUnknownIDs(&context)
        case .count: try await countCheck(&context)
        case .removeAll: try await removeAllCheck(&context)
        case .limitEviction: try await limitEviction(&context)
        case .payloadRoundTrip: try await payloadRoundTrip(&context)
        case .reopenPersistence: try await reopenPersistence(&context)
        case .concurrentAppends: try await concurrentAppends(&context)
        }
    }

    /// Runs every check (skipping `reopenPersistence` when `includingReopen` is false).
    public func runAll(includingReopen: Bool = true) async throws {
        for check in Check.allCases where includingReopen || !check.requiresReopen {
            try await run(check)
        }
    }

    /// Numbered events for the checks: `type` is "Conformance.<n>", `payload["n"]` is n.
    public static func numberedEvents(_ numbers: some Sequence<Int>) -> [Event] {
        numbers.map { number in
            Event(
                appID: "CONFORMANCE-APP",
                type: "Conformance.\(number)",
                clientUser: "c0ffee",
                sessionID: "session-1",
                receivedAt: Date(timeIntervalSince1970: Double(1_718_460_000_000 + number) / 1000),
                payload: ["n": .int(Int64(number)), "label": .string("event \(number)")]
            )
        }
    }

    // MARK: Checks

    private func fifoOrder(_ context: inout CheckContext) async throws {
        let cache = try await make(100).cache
        let events = Self.numberedEvents(1...7)
        try await cache.append(Array(events[0..<3]))
        try await cache.append(Array(events[3..<4]))
        try await cache.append(Array(events[4...]))
        try context.expect(try await cache.peek(limit: 100), events, "peek(limit: 100) after three appends")
        try context.expect(try await cache.peek(limit: 2), Array(events[0..<2]), "peek(limit: 2)")
        try context.expect(try await cache.peek(limit: 0), [], "peek(limit: 0)")
    }

    private func peekDoesNotRemove(_ context: inout CheckContext) async throws {
        let cache = try await make(100).cache
        let events = Self.numberedEvents(1...4)
        try await cache.append(events)
        try context.expect(try await cache.peek(limit: 3), Array(events[0..<3]), "first peek")
        try context.expect(try await cache.peek(limit: 3), Array(events[0..<3]), "second peek")
        try context.expect(await cache.count(), 4, "count after two peeks")
    }

    private func removeByIDs(_ context: inout CheckContext) async throws {
        let cache = try await make(100).cache
        let events = Self.numberedEvents(1...8)
        try await cache.append(events)
        // The dispatcher's case: the oldest batch.
        try await cache.remove(ids: [events[0].id, events[1].id])
        try context.expect(try await cache.peek(limit: 100), Array(events[2...]), "after removing the oldest two")
        // Not a prefix, and out of order.
        try await cache.remove(ids: [events[6].id, events[3].id])
        try context.expect(
            try await cache.peek(limit: 100),
            [events[2], events[4], events[5], events[7]],
            "after removing events 7 and 4"
        )
        try context.expect(await cache.count(), 4, "count after removals")
        try await cache.remove(ids: [events[7].id])
        try context.expect(
            try await cache.peek(limit: 100),
            [events[2], events[4], events[5]],
            "after removing the newest"
        )
    }

    private func removeUnknownIDs(_ context: inout CheckContext) async throws {
        let cache = try await make(100).cache
        let events = Self.numberedEvents(1...3)
        try await cache.append(events)
        try await cache.remove(ids: [UUID(), UUID()])
        try context.expect(try await cache.peek(limit: 100), events, "after removing unknown ids")
        try await cache.remove(ids: [])
        try context.expect(await cache.count(), 3, "count after removing nothing")
        try await cache.remove(ids: [UUID(), events[1].id, UUID()])
        try context.expect(
            try await cache.peek(limit: 100),
            [events[0], events[2]],
            "after a mix of known and unknown"
        )
        try await cache.remove(ids: [events[1].id])
        try context.expect(await cache.count(), 2, "count after removing an id twice")
    }

    private func countCheck(_ context: inout CheckContext) async throws {
        let cache = try await make(100).cache
        try context.expect(await cache.count(), 0, "count of a new cache")
        try context.expect(try await cache.peek(limit: 10), [], "peek of a new cache")
        let events = Self.numberedEvents(1...5)
        try await cache.append(Array(events[0..<2]))
        try context.expect(await cache.count(), 2, "count after appending 2")
        try await cache.append(Array(events[2...]))
        try context.expect(await cache.count(), 5, "count after appending 3 more")
        try await cache.append([])
        try context.expect(await cache.count(), 5, "count after appending nothing")
        try await cache.remove(ids: [events[0].id, events[1].id, events[2].id])
        try context.expect(await cache.count(), 2, "count after removing 3")
        try await cache.remove(ids: events.suffix(2).map(\.id))
        try context.expect(await cache.count(), 0, "count after removing everything")
        try context.expect(await cache.evictedCount(), 0, "evictions below the limit")
    }

    private func removeAllCheck(_ context: inout CheckContext) async throws {
        let cache = try await make(100).cache
        try await cache.append(Self.numberedEvents(1...6))
        try await cache.removeAll()
        try context.expect(await cache.count(), 0, "count after removeAll")
        try context.expect(try await cache.peek(limit: 10), [], "peek after removeAll")
        let later = Self.numberedEvents(7...9)
        try await cache.append(later)
        try context.expect(try await cache.peek(limit: 10), later, "appends after removeAll")
        try context.expect(await cache.evictedCount(), 0, "removeAll is not eviction")
    }

    private func limitEviction(_ context: inout CheckContext) async throws {
        let cache = try await make(5).cache
        let events = Self.numberedEvents(1...12)
        try await cache.append(Array(events[0..<3]))
        try await cache.append(Array(events[3..<8]))
        try context.expect(await cache.count(), 5, "count after 8 appends with limit 5")
        try context.expect(await cache.evictedCount(), 3, "evictedCount after 8 appends with limit 5")
        try context.expect(try await cache.peek(limit: 10), Array(events[3..<8]), "the newest 5 stay, oldest first")
        // A single append larger than the limit keeps its own newest events.
        let more = Self.numberedEvents(13...15)
        try await cache.append(Array(events[8...]) + more)
        try context.expect(await cache.evictedCount(), 10, "evictedCount after 7 more")
        let expected = Array(events[10...]) + more
        try context.expect(try await cache.peek(limit: 10), expected, "after an append larger than the room left")
        try await cache.remove(ids: [expected[0].id])
        try await cache.append(Self.numberedEvents(16...16))
        try context.expect(await cache.evictedCount(), 10, "no eviction while there is room")
    }

    private func payloadRoundTrip(_ context: inout CheckContext) async throws {
        let cache = try await make(100).cache
        let events = Self.payloadSamples
        try await cache.append(events)
        let back = try await cache.peek(limit: 100)
        try context.expect(back.count, events.count, "number of events read back")
        for (written, read) in zip(events, back) where written != read {
            throw context.failure("event \(written.type) came back different: wrote \(written), read \(read)")
        }
    }

    private func reopenPersistence(_ context: inout CheckContext) async throws {
        let events = Self.numberedEvents(1...6) + Self.payloadSamples
        let reopen = try await writeForReopen(events, &context)
        let expected = [events[0], events[2]] + Array(events[4...])
        let later = Self.numberedEvents(20...22)
        do {
            let second = try await reopen()
            try context.expect(try await second.peek(limit: 100), expected, "after reopening")
            try context.expect(await second.count(), expected.count, "count after reopening")
            try await second.append(later)
            try await second.remove(ids: [expected[0].id])
        }
        do {
            let third = try await reopen()
            try context.expect(
                try await third.peek(limit: 100),
                Array(expected.dropFirst()) + later,
                "after appending, removing and reopening again"
            )
            try await third.removeAll()
        }
        let fourth = try await reopen()
        try context.expect(await fourth.count(), 0, "count after removeAll and reopening")
        try context.expect(try await fourth.peek(limit: 10), [], "peek after removeAll and reopening")
    }

    private func concurrentAppends(_ context: inout CheckContext) async throws {
        let (stored, reopen) = try await appendConcurrently(&context)
        // The first instance is released before the storage is opened again (a cache may
        // refuse a second instance on its file).
        if let reopen {
            let reopened = try await reopen()
            try context.expect(try await reopened.peek(limit: 1000), stored, "after reopening")
        }
    }

    /// The appends of ``concurrentAppends(_:)`` and their checks; returns what was stored and
    /// the reopen closure.
    private func appendConcurrently(
        _ context: inout CheckContext
    ) async throws -> ([Event], (@Sendable () async throws -> any EventCaching)?) {
        let subject = try await make(1000)
        let cache = subject.cache
        let perTask = (0..<20).map { task in Self.numberedEvents((task * 100)..<(task * 100 + 15)) }
        let failures = await withTaskGroup(of: (any Error)?.self) { group in
            for events in perTask {
                group.addTask {
                    do {
                        for chunk in stride(from: 0, to: events.count, by: 3) {
                            try await cache.append(Array(events[chunk..<(chunk + 3)]))
                        }
                        return nil
                    } catch {
                        return error
                    }
                }
            }
            var failures: [any Error] = []
            for await failure in group {
                if let failure { failures.append(failure) }
            }
            return failures
        }
        if let failure = failures.first { throw context.failure("a concurrent append failed: \(failure)") }
        try context.expect(await cache.count(), 300, "count after 20 × 15 concurrent appends")
        let stored = try await cache.peek(limit: 1000)
        try context.expect(Set(stored.map(\.id)), Set(perTask.joined().map(\.id)), "the ids stored")
        for events in perTask {
            let ids = Set(events.map(\.id))
            try context.expect(stored.filter { ids.contains($0.id) }, events, "one task's events, in its order")
        }
        return (stored, subject.reopen)
    }

    /// Writes with the first instance and returns only the reopen closure, so the first
    /// instance is released before the storage is opened again.
    private func writeForReopen(
        _ events: [Event],
        _ context: inout CheckContext
    ) async throws -> @Sendable () async throws -> any EventCaching {
        let subject = try await make(100)
        guard let reopen = subject.reopen else {
            throw context.failure("needs a Subject with a reopen closure")
        }
        try await subject.cache.append(Array(events[0..<4]))
        try await subject.cache.append(Array(events[4...]))
        try await subject.cache.remove(ids: [events[1].id, events[3].id])
        return reopen
    }

    /// Events whose fields exercise every encoding path. Dates are whole milliseconds, built
    /// as `milliseconds / 1000` like a parsed timestamp.
    public static let payloadSamples: [Event] = {
        let receivedAt = Date(timeIntervalSince1970: 1_718_460_000.123)
        return [
            Event(
                appID: "APP-1",
                type: "Types.all",
                clientUser: String(repeating: "ab", count: 32),
                sessionID: "0A1B2C3D-0000-4000-8000-000000000001",
                receivedAt: receivedAt,
                payload: [
                    "string": .string("plain"),
                    "int": .int(42),
                    "negative": .int(-7),
                    "intMax": .int(Int64.max),
                    "intMin": .int(Int64.min),
                    "double": .double(0.1),
                    "integralDouble": .double(1.0),
                    "largeDouble": .double(1e20),
                    "tinyDouble": .double(.leastNonzeroMagnitude),
                    "negativeDouble": .double(-2.5),
                    "true": .bool(true),
                    "false": .bool(false),
                    "zero": .int(0),
                    "emptyString": .string(""),
                ],
                floatValue: 3.25,
                isTestMode: true
            ),
            Event(
                appID: "APP-1",
                type: "Unicode.täst 🚀",
                clientUser: "user",
                sessionID: nil,
                receivedAt: Date(timeIntervalSince1970: 1_718_460_000.124),
                payload: [
                    "Grüße": .string("こんにちは 👋🏽 — Ünïcödé"),
                    "quote\"backslash\\": .string("line\nbreak\ttab\r\u{1}\u{1F}\"\\/"),
                    "emoji 🧪": .string("🇨🇭👨‍👩‍👧"),
                    "json-like": .string(#"{"ack":["x"]}"#),
                ],
                floatValue: nil,
                isTestMode: false
            ),
            Event(
                appID: "APP-2",
                type: "Empty.payload",
                clientUser: "",
                receivedAt: Date(timeIntervalSince1970: 0.999),
                payload: [:],
                floatValue: -0.5
            ),
            Event(
                appID: "APP-2",
                type: "Far.future",
                clientUser: "u",
                receivedAt: Date(timeIntervalSince1970: 4_102_444_799.999),
                payload: ["integralFloat": .double(-3.0)],
                floatValue: 2.0
            ),
            // A two-layer payload as the finalizer makes it: the own "screen" shadows the
            // shared one, and the cache must store the merged view.
            Event(
                appID: "APP-2",
                type: "Layered.payload",
                clientUser: "u",
                receivedAt: Date(timeIntervalSince1970: 1_718_460_000.5),
                sharedPayload: ["TelemetryDeck.Device.platform": "Linux", "screen": "shared", "depth": 1],
                ownPayload: ["screen": "own", "count": 2]
            ),
        ]
    }()
}

/// Carries the check being run, for failure messages.
private struct CheckContext {
    let check: EventCacheConformance.Check

    func failure(_ message: String) -> EventCacheConformance.Failure {
        EventCacheConformance.Failure(check: check, message: message)
    }

    func expect(_ actual: [Event], _ expected: [Event], _ what: String) throws {
        guard actual != expected else { return }
        throw failure(
            "\(what): expected \(expected.map(\.type)), got \(actual.map(\.type))"
                + (actual.map(\.type) == expected.map(\.type) ? " (same types, other fields differ)" : "")
        )
    }

    func expect<Value: Equatable>(_ actual: Value, _ expected: Value, _ what: String) throws {
        guard actual != expected else { return }
        throw failure("\(what): expected \(expected), got \(actual)")
    }
}
