#if Tools
import Foundation
import TelemetryKit
import TelemetryKitHTTP

/// A small file-backed event queue for the CLI: one JSON event per line in `events.jsonl`.
///
/// Appends add lines to the end of the file; removals rewrite it atomically. It keeps a
/// copy of the queue in memory, so reads cost nothing. Good for the CLI's volumes (a few
/// thousand events); apps use the SQLite or JSON-lines caches.
final class JournalEventCache: EventCaching {
    private struct State {
        var events: [Event]
        var evicted = 0
    }

    let fileURL: URL
    let limit: Int
    private let state: Locked<State>

    /// Opens (or creates) the journal in `directory`. Unreadable lines are skipped and
    /// reported through `logger`.
    init(directory: URL, limit: Int = 10_000, logger: any Logging) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        fileURL = directory.appendingPathComponent("events.jsonl")
        self.limit = max(1, limit)
        var events: [Event] = []
        if let data = try? Data(contentsOf: fileURL) {
            let decoder = JSONDecoder()
            var skipped = 0
            for line in data.split(separator: UInt8(ascii: "\n")) where !line.isEmpty {
                if let event = try? decoder.decode(Event.self, from: Data(line)) {
                    events.append(event)
                } else {
                    skipped += 1
                }
            }
            if skipped > 0 {
                logger.log(.warning, "skipped \(skipped) unreadable line(s) in \(fileURL.path)")
            }
        }
        state = Locked(State(events: events))
    }

    func append(_ events: [Event]) async throws {
        guard !events.isEmpty else { return }
        var bytes = [UInt8]()
        for event in events {
            EventWireEncoder.encode(event, into: &bytes)
            bytes.append(UInt8(ascii: "\n"))
        }
        // Disk first: memory only changes once the file has the events.
        try state.withLock { state in
            let overflow = state.events.count + events.count - limit
            if overflow > 0 {
                let kept = Array((state.events + events).dropFirst(overflow))
                try rewrite(kept)
                state.events = kept
                state.evicted += overflow
            } else {
                try appendToFile(bytes)
                state.events.append(contentsOf: events)
            }
        }
    }

    func peek(limit: Int) async throws -> [Event] {
        state.withLock { Array($0.events.prefix(max(0, limit))) }
    }

    func remove(ids: [UUID]) async throws {
        guard !ids.isEmpty else { return }
        let removal = Set(ids)
        try state.withLock { state in
            let remaining = state.events.filter { !removal.contains($0.id) }
            guard remaining.count != state.events.count else { return }
            try rewrite(remaining)
            state.events = remaining
        }
    }

    func count() async -> Int {
        state.withLock { $0.events.count }
    }

    func removeAll() async throws {
        try state.withLock { state in
            try rewrite([])
            state.events = []
        }
    }

    func evictedCount() async -> Int {
        state.withLock { $0.evicted }
    }

    private func appendToFile(_ bytes: [UInt8]) throws {
        if !FileManager.default.fileExists(atPath: fileURL.path) {
            try Data(bytes).write(to: fileURL, options: .atomic)
            return
        }
        let handle = try FileHandle(forWritingTo: fileURL)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: bytes)
    }

    private func rewrite(_ events: [Event]) throws {
        var bytes = [UInt8]()
        for event in events {
            EventWireEncoder.encode(event, into: &bytes)
            bytes.append(UInt8(ascii: "\n"))
        }
        try Data(bytes).write(to: fileURL, options: .atomic)
    }
}
#endif
