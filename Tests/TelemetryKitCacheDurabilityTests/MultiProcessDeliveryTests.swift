#if Tools
import Foundation
import TelemetryKit
import TelemetryKitSupport
import TelemetryKitCollector
import TelemetryKitTesting
import Testing

/// Issue 26's measurement as a test: three processes append 5,000 numbered events each to one
/// SQLite queue and send them to the collector, which answers some requests 503 and cuts
/// others off after recording them; each process is killed with SIGKILL at random moments and
/// restarted.
///
/// What must hold: every event a process acknowledged (its `send` returned) reaches the
/// collector; duplicates by id come only from a batch in flight at a kill or from an answer
/// the collector cut off; the collector keeps each id once; each process's events arrive in
/// its order.
///
/// The bound on duplicates per kill: one batch (``batchCount``, 20 events). Only the process
/// holding the send lease has a batch in flight, so a kill leaves at most that one batch to
/// be sent again (before the lease, every process sent the oldest batch: ~75 duplicates per
/// kill were measured with three processes).
@Suite(.serialized)
struct MultiProcessDeliveryTests {
    static let processes = 3
    static let eventsPerProcess = 5_000
    static let killsPerProcess = 3
    /// The crash tester's `maxBatchCount` with `--transmitter http`.
    static let batchCount = 20

    /// What one process slot did: every acknowledgement, and the batch each kill interrupted.
    struct SlotReport: Sendable {
        var slot: Int
        var acknowledged: [Int] = []
        /// Per kill, the ids of the last batch the killed process began to post: in flight,
        /// or posted but perhaps not yet removed from the queue.
        var inFlightAtKills: [[UUID]] = []
        var unparsedLines: [String] = []
        var acknowledgedOutOfOrder = false
    }

    @Test func threeProcessesKilledAtRandomLoseNoAcknowledgedEvent() async throws {
        let executable = try locateCrashTesterExecutable()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let seed = UInt64.random(in: 1...UInt64.max)
        let collector = try await Collector.start(Collector.Configuration(wireFormat: .telemetryDeckWithEventIDs))
        collector.setRandomFaults(RandomFaults(seed: seed, [(.status(503), 0.15), (.closeMidResponse, 0.05)]))

        // The slots run at once.
        var reports: [SlotReport] = []
        try await withThrowingTaskGroup(of: SlotReport.self) { group in
            for slot in 0..<Self.processes {
                group.addTask {
                    try await Self.run(slot: slot, executable: executable, url: url, collector: collector, seed: seed)
                }
            }
            for try await report in group {
                reports.append(report)
            }
        }
        reports.sort { $0.slot < $1.slot }
        let comment: Comment = "seed \(seed)"
        let acknowledged = Set(reports.flatMap(\.acknowledged))
        await collector.shutdown()

        // Every slot acknowledged all its events, in order, across its restarts.
        for report in reports {
            let first = Self.firstNumber(of: report.slot)
            #expect(Set(report.acknowledged) == Set(first..<(first + Self.eventsPerProcess)), comment)
            #expect(!report.acknowledgedOutOfOrder, comment)
            #expect(report.unparsedLines == [], comment)
        }

        // Nothing acknowledged is lost; nothing arrives that no process sent.
        let received = collector.events
        let receivedNumbers = received.compactMap(Self.number)
        #expect(receivedNumbers.count == received.count, "every received event carries its number, \(comment)")
        let missing = acknowledged.subtracting(receivedNumbers)
        #expect(
            missing.isEmpty,
            "\(missing.count) acknowledged event(s) lost: \(missing.sorted().prefix(20)), \(comment)"
        )
        #expect(
            receivedNumbers.allSatisfy { number in
                (0..<Self.processes).contains { slot in
                    let first = Self.firstNumber(of: slot)
                    return number >= first && number < first + Self.eventsPerProcess
                }
            },
            comment
        )

        // The collector keeps each id once: what the recorded requests carried is what it
        // kept plus what it counted as duplicates.
        let recordedIDs = collector.requests.filter(\.recorded).flatMap(\.eventIDs)
        #expect(Set(received.map(\.id)).count == received.count, comment)
        #expect(recordedIDs.count == received.count + collector.duplicateCount, comment)
        #expect(Set(recordedIDs) == Set(received.map(\.id)), comment)

        // Duplicates come only from a batch in flight at a kill or an answer cut off on purpose.
        let repeated = recordedIDs.repeatedElements()
        let inFlightAtKills = Set(reports.flatMap(\.inFlightAtKills).joined())
        let answerLost = Set(collector.requests.filter(\.answerLost).flatMap(\.eventIDs))
        #expect(repeated.isSubset(of: inFlightAtKills.union(answerLost)), comment)
        let kills = reports.map(\.inFlightAtKills.count).reduce(0, +)
        let duplicatesFromKills = repeated.subtracting(answerLost).count
        #expect(kills == Self.processes * (Self.killsPerProcess + 1), comment)
        #expect(
            duplicatesFromKills <= kills * Self.batchCount,
            "\(duplicatesFromKills) duplicates from \(kills) kills, \(comment)"
        )

        // Each process's events arrive in its order (a number may repeat: the event a killed
        // process stored without acknowledging it, and the same number sent by its successor).
        for slot in 0..<Self.processes {
            let first = Self.firstNumber(of: slot)
            let numbers = receivedNumbers.filter { $0 >= first && $0 < first + Self.eventsPerProcess }
            #expect(numbers == numbers.sorted(), "slot \(slot), \(comment)")
        }
    }

    /// Runs one slot's processes: `killsPerProcess` times started and killed at a random
    /// moment, then started once more and killed once the collector has every event the slot
    /// acknowledged (meanwhile it also sends the other slots' events when it holds the lease).
    static func run(
        slot: Int,
        executable: URL,
        url: URL,
        collector: Collector,
        seed: UInt64
    ) async throws -> SlotReport {
        var random = SplitMix64(seed: seed &+ UInt64(slot))
        var report = SlotReport(slot: slot)
        let end = firstNumber(of: slot) + eventsPerProcess
        var next = firstNumber(of: slot)
        func start() throws -> CrashTesterRun {
            try CrashTesterRun(
                executable: executable,
                arguments: [
                    "--cache", "sqlite", "--file", url.path, "--first", "\(next)", "--count", "\(end - next)",
                    "--transmitter", "http", "--url", collector.baseURL,
                ]
            )
        }
        func record(_ output: CrashTesterRun.Output) {
            if output.acknowledged != output.acknowledged.sorted() { report.acknowledgedOutOfOrder = true }
            report.acknowledged += output.acknowledged
            if let last = output.acknowledged.last { next = last + 1 }
            report.unparsedLines += output.unparsedLines
        }
        for kill in 0..<killsPerProcess {
            let run = try start()
            // Somewhere in the next share of what is left, so that every run sends some.
            let share = max(1, (end - next) / (killsPerProcess - kill + 1))
            let target = Int.random(in: 1...share, using: &random)
            _ = try await run.wait(timeout: 60) { $0.acknowledged.count >= target || $0.done }
            try await Task.sleep(nanoseconds: UInt64.random(in: 0..<20_000_000, using: &random))
            try await run.kill()
            let output = run.snapshot
            record(output)
            report.inFlightAtKills.append(output.sendingBatches.last.map { $0.map(\.id) } ?? [])
        }
        let survivor = try start()
        _ = try await survivor.wait(timeout: 60) { $0.done }
        let acknowledged = Set(report.acknowledged + survivor.snapshot.acknowledged)
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline, !acknowledged.isSubset(of: collector.events.compactMap(number)) {
            try await Task.sleep(for: .milliseconds(50))
        }
        try await survivor.kill()
        let output = survivor.snapshot
        record(output)
        report.inFlightAtKills.append(output.sendingBatches.last.map { $0.map(\.id) } ?? [])
        return report
    }

    static func firstNumber(of slot: Int) -> Int { slot * 1_000_000 + 1 }

    static func number(_ event: Event) -> Int? {
        event.payload["number"].flatMap { Int($0.stringValue) }
    }
}
#endif
