import TelemetryKitSupport

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// TelemetryDeck v3's queue: events in memory, written to a JSON file when ``persist()`` is
/// called and read back by ``restore()``.
///
/// Why it exists: apps and tests written for TelemetryDeck's SDK v3 build this type by name
/// and fill or drain it by hand (`add`, `pop`, `count`). It keeps their code compiling and
/// behaving as before, and it is a full `EventCaching`, so `Telemetry.initialize(cache:)`
/// accepts it. It is not durable between calls to ``persist()``: a process that ends without
/// one loses what was queued since, as with v3. The default queue, which is, stays SQLite.
///
/// ```swift
/// let cache = DefaultEventCache(fileURL: directory.appendingPathComponent("queue.json"))
/// await cache.restore()      // at launch: what the last run persisted, oldest first
/// // …
/// await cache.persist()      // when the app leaves
/// ```
///
/// When full (`cacheLimit` events), the oldest events are evicted and counted.
public actor DefaultEventCache: EventCaching {
    /// The most events ``pop()`` returns at a time, as in v3.
    public static let popLimit = 100

    /// The most events kept; older ones are evicted beyond it.
    public let cacheLimit: Int
    /// The file ``persist()`` writes and ``restore()`` reads.
    public let fileURL: URL

    private var events: [Event] = []
    private var evicted = 0

    /// Creates a cache whose file is v3's: `telemetrysignalcache.json` in the user's caches
    /// directory.
    public init(cacheLimit: Int = 10_000) {
        let caches =
            FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
            ?? FileManager.default.temporaryDirectory
        self.init(
            fileURL: caches.appendingPathComponent(TelemetryDeckImporter.eventCacheFileName),
            cacheLimit: cacheLimit
        )
    }

    /// Creates a cache that persists to `fileURL`.
    public init(fileURL: URL, cacheLimit: Int = 10_000) {
        self.fileURL = fileURL
        self.cacheLimit = max(1, cacheLimit)
    }

    // MARK: TelemetryDeck v3's calls

    /// Queues one event, evicting the oldest when full.
    public func add(_ event: Event) {
        enqueue([event])
    }

    /// Queues events in order, evicting the oldest when full.
    public func add(_ events: [Event]) {
        enqueue(events)
    }

    /// Removes and returns the oldest events, at most ``popLimit``.
    public func pop() -> [Event] {
        let batch = Array(events.prefix(Self.popLimit))
        events.removeFirst(batch.count)
        return batch
    }

    /// The number of queued events.
    public func count() -> Int {
        events.count
    }

    /// Writes every queued event to ``fileURL`` (replacing what was there). A failure is
    /// reported by the returned error and the events stay in memory.
    @discardableResult
    public func persist() async -> (any Error)? {
        do {
            try JSONEncoder().encode(events).write(to: fileURL, options: .atomic)
            return nil
        } catch {
            return error
        }
    }

    /// Reads the events a ``persist()`` wrote (or v3 left) at ``fileURL`` ahead of what is
    /// queued now, and removes the file. Beyond `cacheLimit`, the oldest restored events are
    /// evicted. A missing file restores nothing; an unreadable one is left where it is.
    public func restore() async {
        guard let data = try? Data(contentsOf: fileURL) else { return }
        let restored: [Event]
        if let own = try? JSONDecoder().decode([Event].self, from: data) {
            restored = own
        } else if let written = try? TelemetryDeckEventFile.decode(data) {
            restored = written.events
        } else {
            return
        }
        try? FileManager.default.removeItem(at: fileURL)
        let current = events
        events = []
        enqueue(restored + current)
    }

    // MARK: EventCaching

    public func append(_ events: [Event]) async throws {
        enqueue(events)
    }

    public func peek(limit: Int) async throws -> [Event] {
        Array(events.prefix(max(0, limit)))
    }

    public func remove(ids: [UUID]) async throws {
        let removal = Set(ids)
        events.removeAll { removal.contains($0.id) }
    }

    public func removeAll() async throws {
        events.removeAll()
    }

    public func evictedCount() async -> Int {
        evicted
    }

    private func enqueue(_ new: [Event]) {
        events.append(contentsOf: new)
        let overflow = events.count - cacheLimit
        if overflow > 0 {
            events.removeFirst(overflow)
            evicted += overflow
        }
    }
}
