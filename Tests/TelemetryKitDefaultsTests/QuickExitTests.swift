import Foundation
import TelemetryKitDefaults
import TelemetryKitTesting
import Testing

#if Tools
import TelemetryKitCollector
#endif

/// A command-line program that makes a change and ends at once (`telemetrykit-quickexit`, a
/// real child process on a temporary data directory): what it chose is on disk when the call
/// returns, and what it accepted reaches the queue when it returns from `main` (issue 47,
/// items 3 and 4). Each `launch`, `set-user`, `opt-out` and `deny-consent` run ends with
/// `_exit(0)` right after its last call, so no exit handler helps them.
struct QuickExitTests {
    typealias SessionKeys = SessionTrackingProcessor.Keys

    /// Two runs of a CLI are one install with one user and two sessions.
    @Test func twoRunsAreOneInstallWithTwoSessions() async throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        try await Self.run(directory, "launch")
        try await Self.run(directory, "launch")

        let events = try await Self.queuedEvents(in: directory)
        #expect(events.filter { $0.type == SessionKeys.newInstallDetectedEvent }.count == 1)
        let sessions = events.filter { $0.type == SessionKeys.sessionStartedEvent }
        #expect(sessions.map { $0.payload[SessionKeys.totalSessionsCount] } == [.int(1), .int(2)])
        #expect(events.filter { $0.type == "Launch.ran" }.count == 2)
        #expect(Set(events.map(\.clientUser)).count == 1)
    }

    /// `Telemetry.setUserIdentifier` survives the process: the next run sends as that user.
    @Test func theUserIdentifierSetIsTheNextRunsUser() async throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        try await Self.run(directory, "set-user", "alice@example.com")
        try await Self.run(directory, "launch")

        let events = try await Self.queuedEvents(in: directory)
        let chosen = try #require(events.first { $0.type == "User.set" }).clientUser
        let next = events.filter { $0.type == "Launch.ran" || $0.type == SessionKeys.sessionStartedEvent }.suffix(2)
        #expect(next.map(\.type) == [SessionKeys.sessionStartedEvent, "Launch.ran"])
        #expect(next.map(\.clientUser) == [chosen, chosen])
        // The first run's session started as the install, before the user was set.
        #expect(events.first { $0.type == SessionKeys.sessionStartedEvent }?.clientUser != chosen)
    }

    /// An opt-out followed by an immediate exit holds at the next launch: nothing is queued.
    @Test func anOptOutHoldsAtTheNextLaunch() async throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        try await Self.run(directory, "opt-out")
        let output = try await Self.run(directory, "launch")

        #expect(output.contains("analytics-disabled=true"))
        #expect(try await Self.queuedEvents(in: directory).map(\.type) == [])
    }

    /// A consent decision followed by an immediate exit holds at the next launch.
    @Test func aDeniedConsentHoldsAtTheNextLaunch() async throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        try await Self.run(directory, "deny-consent")
        let output = try await Self.run(directory, "consent-state")

        #expect(output.contains("consent=denied"))
    }

    /// 500 fire-and-forget events, then `main` returns: all 500 are in the queue for the next
    /// launch (the exit handler waited for the intake).
    @Test func eventsAcceptedBeforeReturningFromMainAreQueued() async throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }

        try await Self.run(directory, "burst", "500")

        let burst = try await Self.queuedEvents(in: directory).filter { $0.type == "Burst.event" }
        #expect(burst.map { $0.payload["n"] } == (0..<500).map { .int(Int64($0)) })
    }

    #if Tools
    /// The next launch delivers the 500 events of a run that returned from `main` after
    /// sending them fire-and-forget, to the collector on loopback.
    @Test func theNextLaunchDeliversEventsAcceptedBeforeExit() async throws {
        let directory = try Self.makeDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let collector = try await Collector.start()

        try await Self.run(directory, "burst", "500")
        let output = try await Self.run(directory, "flush", collector.baseURL)

        let delivered = collector.events.filter { $0.type == "Burst.event" }
        #expect(output.contains("flush=complete"))
        #expect(Set(delivered.compactMap { $0.payload["n"] }) == Set((0..<500).map { .int(Int64($0)) }))
        #expect(delivered.count == 500)
        await collector.shutdown()
    }
    #endif

    // MARK: Helpers

    static func makeDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("telemetrykit-quickexit-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Runs the program on `directory` and returns its output (standard output and error);
    /// fails the test unless it exits with status 0.
    @discardableResult
    static func run(_ directory: URL, _ arguments: String...) async throws -> String {
        let (status, text) = try await ChildProcess.run("telemetrykit-quickexit", [directory.path] + arguments)
        #expect(status == 0, "telemetrykit-quickexit \(arguments.joined(separator: " ")): \(text)")
        return text
    }

    /// The events in the default queue of `directory`, oldest first, as the next launch finds
    /// them (the default layout: `events-ingest.sqlite` in the data directory).
    static func queuedEvents(in directory: URL) async throws -> [Event] {
        let cache = try SQLiteEventCache(
            fileURL: directory.appendingPathComponent("events-\(Telemetry.defaultDestinationID).sqlite"),
            logger: SilentLogger()
        )
        return try await cache.peek(limit: 10_000)
    }
}
