import Foundation
import TelemetryKit
import TelemetryKitJSONLinesCache
import TelemetryKitTesting
import Testing

/// Two real processes on one SQLite queue (an app and its extension): both append, both run a
/// dispatcher, and the send lease lets one send at a time.
@Suite(.serialized)
struct SharedQueueTests {
    static let eventsPerProcess = 1_500

    /// Without kills, every event is delivered exactly once, by whichever process held the
    /// lease, and each sender delivers each process's events in the order they were appended.
    /// (Without the lease both dispatchers peek the same oldest batch and deliver it twice.)
    @Test func twoProcessesDeliverEveryEventOnceAndInOrder() async throws {
        let executable = try locateCrashTesterExecutable()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.sqlite")
        let firsts = [1, 1_000_001]
        let runs = try firsts.map { first in
            try CrashTesterRun(
                executable: executable,
                arguments: [
                    "--cache", "sqlite", "--file", url.path, "--first", "\(first)",
                    "--count", "\(Self.eventsPerProcess)", "--transmitter", "stdout",
                ]
            )
        }
        let expected = Set(firsts.flatMap { $0..<($0 + Self.eventsPerProcess) })
        var delivered: [[(number: Int, id: UUID)]] = []
        var allDelivered = false
        let deadline = Date().addingTimeInterval(90)
        while Date() < deadline, !allDelivered {
            try await Task.sleep(for: .milliseconds(50))
            delivered = runs.map { Array($0.snapshot.deliveredBatches.joined()) }
            allDelivered = Set(delivered.joined().map(\.number)).isSuperset(of: expected)
        }
        for run in runs { try await run.kill() }
        delivered = runs.map { Array($0.snapshot.deliveredBatches.joined()) }

        #expect(runs.map { $0.snapshot.acknowledged.count } == [Self.eventsPerProcess, Self.eventsPerProcess])
        #expect(runs.allSatisfy { $0.snapshot.unparsedLines.isEmpty })
        let all = Array(delivered.joined())
        #expect(Set(all.map(\.number)) == expected)
        #expect(all.count == expected.count, "\(all.count - Set(all.map(\.id)).count) event(s) delivered twice")
        #expect(Set(all.map(\.id)).count == all.count)
        // (Which process sends is up to the lease's timing: one may send everything.)
        for (sender, events) in delivered.enumerated() {
            for first in firsts {
                let numbers = events.map(\.number).filter { $0 >= first && $0 < first + Self.eventsPerProcess }
                #expect(numbers == numbers.sorted(), "sender \(sender), events from \(first)")
            }
        }
    }

    /// Two processes that open a file neither has created yet (an app and its extension on a
    /// first launch) both open it, even while the first already appends and sends: the other
    /// waits for its locks instead of failing with "database is locked". The race is narrow,
    /// so the pair starts twenty times.
    @Test func twoProcessesOpeningANewFileTogetherBothOpenIt() async throws {
        let executable = try locateCrashTesterExecutable()
        for attempt in 1...20 {
            let directory = try TemporaryDirectory()
            defer { directory.remove() }
            let url = directory.file("events.sqlite")
            let runs = try [1, 1_000_001].map { first in
                try CrashTesterRun(
                    executable: executable,
                    arguments: [
                        "--cache", "sqlite", "--file", url.path, "--first", "\(first)", "--count", "50",
                        "--transmitter", "stdout",
                    ]
                )
            }
            for run in runs {
                let done = try await run.wait(timeout: 30) { $0.done }
                #expect(done, "attempt \(attempt): \(run.terminationReason)")
                try await run.kill()
            }
            #expect(runs.map { $0.snapshot.acknowledged.count } == [50, 50], "attempt \(attempt)")
        }
    }

    /// A JSON-lines journal has one writer: while a process has it open, a second process
    /// cannot open it (the crash tester exits with status 2 on the typed error), nor can an
    /// instance here; once the first process is killed, the journal opens with every event
    /// it acknowledged.
    @Test func aJSONLinesJournalRefusesASecondProcessUntilTheFirstIsGone() async throws {
        let executable = try locateCrashTesterExecutable()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let url = directory.file("events.jsonl")
        let holder = try CrashTesterRun(
            executable: executable,
            arguments: ["--cache", "jsonlines", "--file", url.path, "--count", "5"]
        )
        #expect(try await holder.wait { $0.done })

        let second = try CrashTesterRun(
            executable: executable,
            arguments: ["--cache", "jsonlines", "--file", url.path, "--first", "6", "--count", "5"]
        )
        #expect(try await second.waitForExit() == 2)
        #expect(second.snapshot.acknowledged == [])
        let refusal = #expect(throws: JSONLinesEventCache.FileInUseError.self) {
            _ = try JSONLinesEventCache(fileURL: url)
        }
        #expect(refusal?.path == url.path)
        #expect(refusal?.lockPath == url.path + ".lock")

        try await holder.kill()
        let reopened = try JSONLinesEventCache(fileURL: url)
        #expect(try await reopened.peek(limit: 100).map { $0.payload["number"] } == (1...5).map { .int(Int64($0)) })
    }
}

/// The crash tester, built with the tests.
func locateCrashTesterExecutable() throws -> URL {
    let (url, searched) = TestExecutable.locate("telemetrykit-crashtester")
    return try #require(
        url,
        """
        telemetrykit-crashtester was not found next to the test bundle. Build it with \
        `swift build --build-tests`. Searched: \(searched.joined(separator: ", "))
        """
    )
}
