import Foundation
import TelemetryKit
import TelemetryKitCacheSupport
import TelemetryKitSupport
import TelemetryKitTesting
import Testing

/// The intake journal's file: what an instance that died leaves for the next opening. A copy
/// of a live journal's file stands in for a dead instance's (nobody holds its lock).
@Suite struct IntakeJournalTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// Records `texts` as one append, each its own entry.
    private func record(_ texts: [String], in journal: IntakeJournal<String>) -> IntakeJournal<String>.Recording {
        var all: [UInt8] = []
        var ends: [Int] = []
        for text in texts {
            all += bytes(text)
            ends.append(all.count)
        }
        return journal.record(texts, bytes: all, ends: ends)
    }

    /// The entries a dead owner of a copy of `journal`'s file would leave.
    private func entriesOfACopy(of journal: IntakeJournal<String>, in directory: TemporaryDirectory) throws -> [String]
    {
        let cache = directory.file("copy-\(UUID().uuidString).sqlite").path
        try FileManager.default.copyItem(atPath: try #require(journal.path), toPath: cache + "-intake-dead")
        let abandoned = AbandonedIntakeJournal.all(nextTo: cache, logger: RecordingLogger())
        #expect(abandoned.count == 1)
        defer { abandoned.forEach { $0.discard() } }
        return abandoned.flatMap(\.entries).map { String(decoding: $0, as: UTF8.self) }
    }

    @Test func aDeadOwnersUncommittedEntriesAreReadBackInOrder() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = directory.file("events.sqlite").path
        let journal = IntakeJournal<String>(nextTo: cache)
        #expect(record(["refused"], in: journal) == .refused)  // not open yet
        try journal.open()

        #expect(record(["first", "second"], in: journal) == .recorded(schedulesCommit: true))
        #expect(record(["third"], in: journal) == .recorded(schedulesCommit: false))
        #expect(try entriesOfACopy(of: journal, in: directory) == ["first", "second", "third"])
        // The live journal itself is locked: not anyone's to replay.
        #expect(AbandonedIntakeJournal.all(nextTo: cache, logger: RecordingLogger()).isEmpty)
        #expect(journal.pendingCount == 3)
    }

    /// A journal released with entries not committed is left for the next opening, which
    /// replays it at once even while child processes are being started (each holds a copy of
    /// the journal's descriptor for a moment; the lock is given up before the close).
    @Test func aReleasedJournalIsReplayableWhileChildProcessesAreBeingStarted() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = directory.file("events.sqlite").path
        let (replayed, skipped) = try await repeatWhileStartingChildProcesses {
            do {
                let journal = IntakeJournal<String>(nextTo: cache)
                try journal.open()
                _ = record(["left"], in: journal)
            }  // released here, its entry not committed
            let abandoned = AbandonedIntakeJournal.all(nextTo: cache, logger: RecordingLogger())
            defer { abandoned.forEach { $0.discard() } }
            return abandoned.flatMap(\.entries) == [bytes("left")]
        }
        #expect(replayed > 0)
        #expect(skipped == 0)
    }

    @Test func committedEntriesAreNotReplayedAndAnEmptiedJournalStartsOver() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let journal = IntakeJournal<String>(nextTo: directory.file("events.sqlite").path)
        try journal.open()
        _ = record(["a", "b", "c"], in: journal)

        #expect(journal.takePending() == ["a", "b", "c"])
        #expect(record(["d"], in: journal) == .recorded(schedulesCommit: true))  // after a take
        journal.markCommitted(2)
        #expect(try entriesOfACopy(of: journal, in: directory) == ["c", "d"])
        journal.markCommitted(2)
        #expect(journal.pendingCount == 0)
        #expect(try entriesOfACopy(of: journal, in: directory) == [])
        _ = record(["e"], in: journal)
        #expect(try entriesOfACopy(of: journal, in: directory) == ["e"])
        let size = try FileManager.default.attributesOfItem(atPath: try #require(journal.path))[.size] as? Int
        #expect(size == IntakeJournal<String>.defaultCapacity)
    }

    @Test func aFullJournalRefusesUntilItsEntriesAreCommitted() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let journal = IntakeJournal<String>(nextTo: directory.file("events.sqlite").path, capacity: 64 + 4096)
        try journal.open()
        let big = String(repeating: "x", count: 4000)

        #expect(record([big], in: journal) == .recorded(schedulesCommit: true))
        #expect(record([String(repeating: "y", count: 100)], in: journal) == .refused)
        #expect(journal.takePending() == [big])
        journal.markCommitted(1)
        #expect(record([String(repeating: "y", count: 100)], in: journal) == .recorded(schedulesCommit: true))
    }

    @Test func closingDeletesTheFileOnlyWhenEverythingIsCommitted() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = directory.file("events.sqlite").path
        var path: String?
        do {
            let journal = IntakeJournal<String>(nextTo: cache)
            try journal.open()
            _ = record(["kept"], in: journal)
            path = journal.path
        }
        let left = try #require(path)
        #expect(FileManager.default.fileExists(atPath: left))
        let abandoned = AbandonedIntakeJournal.all(nextTo: cache, logger: RecordingLogger())
        #expect(abandoned.flatMap(\.entries) == [bytes("kept")])
        abandoned.forEach { $0.discard() }
        #expect(!FileManager.default.fileExists(atPath: left))

        do {
            let journal = IntakeJournal<String>(nextTo: cache)
            try journal.open()
            _ = record(["committed"], in: journal)
            _ = journal.takePending()
            journal.markCommitted(1)
            path = journal.path
        }
        #expect(!FileManager.default.fileExists(atPath: try #require(path)))
    }

    @Test func aDamagedTailEndsTheEntriesWithAWarning() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let journal = IntakeJournal<String>(nextTo: directory.file("events.sqlite").path)
        try journal.open()
        _ = record(["whole", "damaged"], in: journal)
        let copy = directory.file("copy.sqlite").path
        var data = try Data(contentsOf: URL(fileURLWithPath: try #require(journal.path)))
        // The second entry's length (at 64 + 4 + 5) claims more bytes than the entries hold.
        data.replaceSubrange(73..<77, with: [0xFF, 0xFF, 0, 0])
        try data.write(to: URL(fileURLWithPath: copy + "-intake-dead"))
        let logger = RecordingLogger()

        let abandoned = AbandonedIntakeJournal.all(nextTo: copy, logger: logger)

        #expect(abandoned.flatMap(\.entries) == [bytes("whole")])
        #expect(logger.warnings.count == 1)
        #expect(logger.warnings.first?.contains("damaged data") == true)
    }

    @Test func aFileThatIsNotAJournalIsMovedAsideWithAWarning() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = directory.file("events.sqlite").path
        try Data("not a journal at all, and far too short".utf8).write(to: URL(fileURLWithPath: cache + "-intake-x"))
        let logger = RecordingLogger()

        #expect(AbandonedIntakeJournal.all(nextTo: cache, logger: logger).isEmpty)

        #expect(!FileManager.default.fileExists(atPath: cache + "-intake-x"))
        #expect(FileManager.default.fileExists(atPath: cache + "-intake-x.corrupt"))
        #expect(logger.warnings.first?.contains("not an intake journal") == true)
        #expect(AbandonedIntakeJournal.all(nextTo: cache, logger: logger).isEmpty)
        #expect(logger.warnings.count == 1)
    }

    /// Another instance looking for abandoned journals while this one opens its own (two
    /// processes opening one queue at once) never sees the new journal unlocked or without its
    /// header. It once did, between the file's creation and its lock: it moved the journal
    /// aside as damaged while its owner went on recording into it.
    @Test func aJournalBeingOpenedIsNeverTakenForADeadInstances() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = directory.file("events.sqlite").path
        let logger = RecordingLogger()
        // (opening, scans, entries taken) shared with the scanning thread.
        let shared = Locked((opening: true, scans: 0, taken: 0))
        let scanner = Thread {
            while shared.withLock({ $0.opening }) {
                let found = AbandonedIntakeJournal.all(nextTo: cache, logger: logger)
                shared.withLock { state in
                    state.scans += 1
                    state.taken += found.flatMap(\.entries).count
                }
                // As an opening would (a journal closed meanwhile is found emptied).
                found.forEach { $0.discard() }
            }
        }
        scanner.start()
        let (opened, gone) = try await onThreadOfItsOwn {
            while shared.withLock({ $0.scans }) == 0 { Thread.sleep(forTimeInterval: 0.001) }
            var (opened, gone) = (0, 0)
            for _ in 0..<3_000 {
                let journal = IntakeJournal<String>(nextTo: cache)
                try journal.open()
                _ = record(["kept"], in: journal)
                if FileManager.default.fileExists(atPath: journal.path ?? "") { opened += 1 } else { gone += 1 }
                _ = journal.takePending()
                journal.markCommitted(1)
            }
            return (opened, gone)
        }
        shared.withLock { $0.opening = false }
        while !scanner.isFinished { try await Task.sleep(for: .milliseconds(1)) }

        #expect(opened == 3_000)
        #expect(gone == 0)
        #expect(shared.withLock { $0.scans } > 100)
        #expect(shared.withLock { $0.taken } == 0)
        #expect(logger.warnings == [])
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.url.path) == [])
    }

    /// What a kill while a journal was being prepared leaves: a file under the preparing
    /// name, which held no entries. The next opening deletes it once it is a minute old; a
    /// younger one (it may be a live instance's, not yet locked) and a live journal are kept.
    @Test func aJournalLeftHalfPreparedIsDeletedWhenOldAndTheOthersAreKept() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = directory.file("events.sqlite").path
        let old = IntakeJournal<Never>.preparingFilePrefix(for: cache) + "dead"
        let young = IntakeJournal<Never>.preparingFilePrefix(for: cache) + "being-prepared"
        try Data(count: 64).write(to: URL(fileURLWithPath: old))
        try Data(count: 64).write(to: URL(fileURLWithPath: young))
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: -61)], ofItemAtPath: old)
        let live = IntakeJournal<String>(nextTo: cache)
        try live.open()
        let logger = RecordingLogger()

        #expect(AbandonedIntakeJournal.all(nextTo: cache, logger: logger).isEmpty)

        #expect(!FileManager.default.fileExists(atPath: old))
        #expect(FileManager.default.fileExists(atPath: young))
        #expect(FileManager.default.fileExists(atPath: try #require(live.path)))
        #expect(logger.warnings == [])
    }

    /// An opening that read a journal's name before another replayed and discarded it, and
    /// locked it after, finds it emptied: nothing to replay, and nothing to warn about.
    @Test func aJournalDiscardedByAnotherOpeningIsEmptyWithoutAWarning() throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = directory.file("events.sqlite").path
        let source = IntakeJournal<String>(nextTo: directory.file("source.sqlite").path)
        try source.open()
        _ = record(["replayed once"], in: source)
        let dead = cache + "-intake-dead"
        try FileManager.default.copyItem(atPath: try #require(source.path), toPath: dead)
        // Another opening's view: the file opened before the discard, read after it.
        let keptOpen = try FileHandle(forReadingFrom: URL(fileURLWithPath: dead))
        defer { try? keptOpen.close() }
        let first = AbandonedIntakeJournal.all(nextTo: cache, logger: RecordingLogger())
        #expect(first.flatMap(\.entries) == [bytes("replayed once")])
        first.forEach { $0.discard() }
        let emptied = try #require(try keptOpen.readToEnd())
        try emptied.write(to: URL(fileURLWithPath: cache + "-intake-read-late"))
        let logger = RecordingLogger()

        let second = AbandonedIntakeJournal.all(nextTo: cache, logger: logger)

        #expect(second.flatMap(\.entries) == [])
        #expect(logger.warnings == [])
    }
}
