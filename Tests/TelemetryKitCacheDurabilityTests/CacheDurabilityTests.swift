import Foundation
import TelemetryKit
import TelemetryKitJSONLinesCache
import TelemetryKitSQLiteCache
import TelemetryKitSupport
import TelemetryKitTesting
import Testing

/// The durable caches, as the crash tester names them.
enum DurableCacheKind: String, CaseIterable, Sendable {
    case sqlite
    case jsonlines

    var fileName: String { self == .sqlite ? "events.sqlite" : "events.jsonl" }

    /// Opens the cache with limits far above what a test sends, as the crash tester does:
    /// nothing is evicted (a run of the kill test queues over 100,000 events into SQLite).
    func open(_ url: URL, logger: any Logging) throws -> any EventCaching {
        switch self {
        case .sqlite: return try SQLiteEventCache(fileURL: url, limit: 10_000_000, maxBytes: 1 << 40, logger: logger)
        case .jsonlines: return try JSONLinesEventCache(fileURL: url, limit: 1_000_000, logger: logger)
        }
    }

    /// Opens the cache once the instance of a client shut down just before has been released:
    /// its dispatcher's timer task lets go of it shortly after the shutdown, and until then a
    /// JSON-lines journal refuses a second instance (for up to 5 s).
    func openOnceReleased(_ url: URL, logger: any Logging) async throws -> any EventCaching {
        for _ in 0..<250 {
            do {
                return try open(url, logger: logger)
            } catch is JSONLinesEventCache.FileInUseError {
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        return try open(url, logger: logger)
    }
}

/// Kill -9 tests: a child process sends numbered events through a `TelemetryClient` with a
/// durable cache, awaiting each `send` and printing the number it acknowledged; it is killed
/// with SIGKILL at random moments and restarted, and the cache is then drained into a spy.
@Suite(.serialized)
struct CacheDurabilityTests {
    static let kills = 20
    /// The crash tester's batch size when it delivers (`--transmitter stdout`).
    static let childBatchCount = 20

    @Test(arguments: DurableCacheKind.allCases)
    func everyAcknowledgedEventSurvivesRepeatedSIGKILL(_ kind: DurableCacheKind) async throws {
        let executable = try locateCrashTester()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file(kind.fileName)
        let seed = UInt64.random(in: 1...UInt64.max)
        var random = SplitMix64(seed: seed)

        var lastAcknowledged = 0
        var acknowledged: [Int] = []
        var inFlightNumbers: [Int] = []
        for round in 0..<Self.kills {
            let run = try CrashTesterRun(
                executable: executable,
                arguments: ["--cache", kind.rawValue, "--file", url.path, "--first", "\(lastAcknowledged + 1)"]
            )
            try await killAtARandomMoment(run, round: round, random: &random)
            let output = run.snapshot
            #expect(output.unparsedLines == [], "seed \(seed), round \(round)")
            acknowledged += output.acknowledged
            #expect(output.acknowledged == Array(output.acknowledged.sorted()), "seed \(seed)")
            if let last = output.acknowledged.last { lastAcknowledged = last }
            // The send after the last acknowledged one may have reached the cache.
            inFlightNumbers.append(lastAcknowledged + 1)
        }
        #expect(lastAcknowledged > 0, "the child acknowledged nothing in \(Self.kills) runs (seed \(seed))")

        let drained = try await drain(kind, url)
        let numbers = drained.map(\.number)
        let comment: Comment = "seed \(seed), acknowledged up to \(lastAcknowledged), drained \(numbers)"

        // Nothing acknowledged is missing, nothing unsent appears.
        #expect(Set(acknowledged) == Set(1...lastAcknowledged), comment)
        #expect(Set(numbers).isSuperset(of: 1...lastAcknowledged), comment)
        #expect(numbers.allSatisfy { $0 >= 1 && $0 <= lastAcknowledged + 1 }, comment)
        // FIFO across restarts.
        #expect(numbers == numbers.sorted(), comment)
        // A number appears twice only when a killed child had stored it without acknowledging
        // it, and the next child sent it again: two events, two ids.
        let repeated = numbers.repeatedElements()
        #expect(repeated.allSatisfy { inFlightNumbers.contains($0) }, comment)
        #expect(numbers.count - Set(numbers).count <= Self.kills, comment)
        #expect(Set(drained.map(\.id)).count == drained.count, "every cached event is stored once, \(comment)")
    }

    @Test(arguments: DurableCacheKind.allCases)
    func deliveredBatchesAreReSentOnlyWhenInFlightAtTheKill(_ kind: DurableCacheKind) async throws {
        let executable = try locateCrashTester()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file(kind.fileName)
        let seed = UInt64.random(in: 1...UInt64.max)
        var random = SplitMix64(seed: seed)

        var lastAcknowledged = 0
        var delivered: [(number: Int, id: UUID)] = []
        var inFlightIDs = Set<UUID>()
        var inFlightNumbers: [Int] = []
        for round in 0..<Self.kills {
            let run = try CrashTesterRun(
                executable: executable,
                arguments: [
                    "--cache", kind.rawValue, "--file", url.path, "--first", "\(lastAcknowledged + 1)",
                    "--transmitter", "stdout",
                ]
            )
            try await killAtARandomMoment(run, round: round, random: &random)
            let output = run.snapshot
            #expect(output.unparsedLines == [], "seed \(seed), round \(round)")
            if let last = output.acknowledged.last { lastAcknowledged = last }
            inFlightNumbers.append(lastAcknowledged + 1)
            delivered += output.deliveredBatches.joined()
            // The last accepted batch may not have been removed before the kill.
            for event in output.deliveredBatches.last ?? [] { inFlightIDs.insert(event.id) }
        }
        let deliveredByChildren = delivered.count
        delivered += try await drain(kind, url)
        let comment: Comment =
            "seed \(seed), acknowledged up to \(lastAcknowledged), \(deliveredByChildren) delivered by the children"

        let numbers = delivered.map(\.number)
        #expect(Set(numbers).isSuperset(of: 1...lastAcknowledged), comment)
        #expect(numbers.allSatisfy { $0 >= 1 && $0 <= lastAcknowledged + 1 }, comment)
        // Re-sent events keep their id, so a receiver can drop them; only in-flight batches repeat.
        let repeatedIDs = delivered.map(\.id).repeatedElements()
        #expect(repeatedIDs.isSubset(of: inFlightIDs), comment)
        #expect(repeatedIDs.count <= Self.kills * Self.childBatchCount, comment)
        var seen = Set<UUID>()
        let firstDeliveries = delivered.filter { seen.insert($0.id).inserted }
        // Dropping repeats by id leaves one event per number, except numbers re-sent after a kill.
        let repeatedNumbers = firstDeliveries.map(\.number).repeatedElements()
        #expect(repeatedNumbers.allSatisfy { inFlightNumbers.contains($0) }, comment)
        #expect(firstDeliveries.map(\.number) == firstDeliveries.map(\.number).sorted(), "FIFO, \(comment)")
    }

    @Test(arguments: DurableCacheKind.allCases)
    func aRestartAfterACrashDeliversWhatWasQueuedInOrder(_ kind: DurableCacheKind) async throws {
        let executable = try locateCrashTester()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file(kind.fileName)

        for (first, count) in [(1, 30), (31, 15)] {
            let run = try CrashTesterRun(
                executable: executable,
                arguments: [
                    "--cache", kind.rawValue, "--file", url.path, "--first", "\(first)", "--count", "\(count)",
                ]
            )
            let done = try await run.wait { $0.done }
            #expect(done, "the child stopped early: \(run.terminationReason)")
            try await run.kill()
            #expect(run.snapshot.acknowledged == Array(first..<(first + count)))
        }

        let drained = try await drain(kind, url)
        #expect(drained.map(\.number) == Array(1...45))
        #expect(Set(drained.map(\.id)).count == 45)
        let reopened = try await kind.openOnceReleased(url, logger: RecordingLogger())
        #expect(await reopened.count() == 0)
    }

    // MARK: Helpers

    private func locateCrashTester() throws -> URL {
        let (url, searched) = TestExecutable.locate("telemetrykit-crashtester")
        return try #require(
            url,
            """
            telemetrykit-crashtester was not found next to the test bundle. Build it with \
            `swift build --build-tests` (or `swift build --product telemetrykit-crashtester`). \
            Searched: \(searched.joined(separator: ", "))
            """
        )
    }

    /// Kills the child either early (while it opens the cache or starts) or after it
    /// acknowledged at least one event, after a random delay.
    private func killAtARandomMoment(_ run: CrashTesterRun, round: Int, random: inout SplitMix64) async throws {
        if Int.random(in: 0..<4, using: &random) == 0 {
            try await Task.sleep(nanoseconds: UInt64.random(in: 0..<40_000_000, using: &random))
        } else {
            let acknowledged = try await run.wait { !$0.acknowledged.isEmpty }
            #expect(acknowledged, "round \(round): the child acknowledged nothing: \(run.terminationReason)")
            try await Task.sleep(nanoseconds: UInt64.random(in: 0..<150_000_000, using: &random))
        }
        try await run.kill()
    }

    /// Opens the cache as a restarted app would and delivers everything into a spy.
    private func drain(_ kind: DurableCacheKind, _ url: URL) async throws -> [(number: Int, id: UUID)] {
        let logger = RecordingLogger()
        let cache = try kind.open(url, logger: logger)
        let spy = SpyEventTransmitter()
        let client = TelemetryClient(
            configuration: TelemetryClient.Configuration(appID: "DRAIN"),
            destinations: [Destination(id: "drain", transmitter: spy, cache: cache)],
            storage: InMemoryProcessorStorage(),
            logger: logger
        )
        await client.start()
        let result = await client.flush()
        #expect(result == .complete)
        await client.shutdown()
        #expect(await cache.count() == 0)
        return try spy.deliveredEvents.map { event in
            guard case .int(let number) = event.payload["number"] else {
                throw DurabilityTestError("event \(event.id) has no number: \(event.payload)")
            }
            return (Int(number), event.id)
        }
    }
}

struct DurabilityTestError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}

extension Sequence where Element: Hashable {
    /// The elements that occur more than once.
    func repeatedElements() -> Set<Element> {
        var seen = Set<Element>()
        var repeated = Set<Element>()
        for element in self where !seen.insert(element).inserted {
            repeated.insert(element)
        }
        return repeated
    }
}
