#if Tools
import Foundation
import Testing
import TelemetryKitCollector
import TelemetryKitDefaults
import TelemetryKitTesting

/// `Telemetry.resetIdentity()` and `Telemetry.removeAllData()` through the facade, with the
/// default processors, the durable default queue and storage in a temporary directory, and
/// the loopback collector. Part of the serialized facade suite.
extension FacadeTests {
    private static let newInstall = "TelemetryDeck.Acquisition.newInstallDetected"
    private static let sessionStarted = "TelemetryDeck.Session.started"

    private func eraseConfiguration(_ collector: Collector, directory: URL) throws -> Telemetry.Config {
        var configuration = Telemetry.Config(
            appID: "ERASE-APP",
            namespace: "erase",
            apiBaseURL: try #require(URL(string: collector.baseURL)),
            dataDirectory: directory
        )
        configuration.deliveryPolicy = DeliveryPolicy(flushInterval: 3600, backoff: BackoffPolicy(jitter: 0))
        configuration.shutdownTimeout = 1
        return configuration
    }

    private func eraseDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("telemetrykit-erase-\(UUID())")
    }

    private func event(_ type: String, in collector: Collector) throws -> Event {
        try #require(collector.events.last { $0.type == type }, "no \(type) reached the collector")
    }

    @Test func resetIdentityGivesLaterEventsANewUserAndSession() async throws {
        await Telemetry.terminate()
        let collector = try await Collector.start()
        let directory = eraseDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = try eraseConfiguration(collector, directory: directory)
        try await Telemetry.initialize(configuration: configuration)

        _ = await Telemetry.send(EventInput("AsTheInstall"))
        await Telemetry.setUserIdentifier("alice@example.com")
        Telemetry.signal("AsAlice")
        await Telemetry.resetIdentity()
        Telemetry.signal("AfterReset")
        #expect(await Telemetry.flush() == .complete)

        let install = try event("AsTheInstall", in: collector)
        let alice = try event("AsAlice", in: collector)
        let after = try event("AfterReset", in: collector)
        #expect(alice.clientUser != install.clientUser)
        #expect(after.clientUser != alice.clientUser, "the set user id is cleared")
        #expect(after.clientUser != install.clientUser, "the install id is replaced")
        #expect(after.sessionID != alice.sessionID, "a new session")
        #expect(collector.events.filter { $0.type == Self.sessionStarted }.count == 2)
        // Queued before the reset: sent as who they were.
        #expect(alice.sessionID == install.sessionID)

        // The new identity is the install's from now on.
        await Telemetry.terminate()
        try await Telemetry.initialize(configuration: configuration)
        Telemetry.signal("NextLaunch")
        #expect(await Telemetry.flush() == .complete)
        #expect(try event("NextLaunch", in: collector).clientUser == after.clientUser)
        await Telemetry.terminate()
        await collector.shutdown()
    }

    @Test func removeAllDataErasesTheQueueAndTheStoredState() async throws {
        await Telemetry.terminate()
        let collector = try await Collector.start()
        let directory = eraseDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = try eraseConfiguration(collector, directory: directory)
        try await Telemetry.initialize(configuration: configuration)

        Telemetry.signal("Delivered")
        #expect(await Telemetry.flush() == .complete)
        let before = try event("Delivered", in: collector)
        collector.script([.status(503)])
        for number in 0..<5 {
            Telemetry.signal("Queued", parameters: ["n": "\(number)"])
        }
        await Telemetry.startDurationEvent("Running")
        _ = await Telemetry.flush()  // refused with 503: the five stay queued
        #expect(await Telemetry.client?.deliveryStatus(of: Telemetry.defaultDestinationID)?.queued ?? 0 >= 5)

        try await Telemetry.removeAllData()
        Telemetry.signal("AfterErase")
        #expect(await Telemetry.flush() == .complete)

        #expect(collector.events.filter { $0.type == "Queued" }.isEmpty, "the queued events were erased")
        let after = try event("AfterErase", in: collector)
        #expect(after.clientUser != before.clientUser, "a fresh install id")
        #expect(after.sessionID != before.sessionID)
        #expect(collector.events.filter { $0.type == Self.newInstall }.count == 2, "counted as a fresh install")
        let running = Telemetry.client?.durations.stopDuration("Running")
        #expect(running == nil, "the running duration was erased")

        // On disk too: the next launch is the erased install's, not the old one's.
        await Telemetry.terminate()
        try await Telemetry.initialize(configuration: configuration)
        Telemetry.signal("NextLaunch")
        #expect(await Telemetry.flush() == .complete)
        #expect(try event("NextLaunch", in: collector).clientUser == after.clientUser)
        #expect(collector.events.filter { $0.type == Self.newInstall }.count == 2)
        await Telemetry.terminate()
        await collector.shutdown()
    }

    @Test func aBatchInFlightDuringTheErasureIsNotSentAgain() async throws {
        await Telemetry.terminate()
        let collector = try await Collector.start()
        let directory = eraseDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await Telemetry.initialize(
            configuration: eraseConfiguration(collector, directory: directory),
            processors: []
        )
        // Refused, and only after a second: without the erasure it would be retried.
        collector.script([Fault.status(503).delayed(by: 1)])
        for number in 0..<3 {
            Telemetry.signal("InFlight", parameters: ["n": "\(number)"])
        }
        let flushing = Task { await Telemetry.flush() }
        try await Task.sleep(for: .milliseconds(300))  // the request is on its way
        try await Telemetry.removeAllData()
        _ = await flushing.value

        Telemetry.signal("AfterErase")
        #expect(await Telemetry.flush() == .complete)
        #expect(collector.events.map(\.type) == ["AfterErase"])
        let inFlightRequests = collector.requests.filter {
            String(decoding: $0.body, as: UTF8.self).contains("InFlight")
        }
        #expect(inFlightRequests.count <= 1, "sent at most the once it was on its way")
        #expect(await Telemetry.stats.destinations[Telemetry.defaultDestinationID]?.retried == 0)
        await Telemetry.terminate()
        await collector.shutdown()
    }

    @Test func removeAllDataBeforeInitializeErasesWhatTheLastRunLeft() async throws {
        await Telemetry.terminate()
        let collector = try await Collector.start()
        let directory = eraseDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = try eraseConfiguration(collector, directory: directory)
        try await Telemetry.initialize(configuration: configuration, processors: [])
        collector.script([.status(503)])  // the one attempt of the shutdown (its retry would come after the deadline)
        Telemetry.signal("LeftQueued")
        await Telemetry.terminate()  // fails to deliver: the event stays on disk
        #expect(collector.requests.map(\.status) == [503])
        collector.reset()

        Telemetry.signal("Buffered")
        try await Telemetry.removeAllData()
        try await Telemetry.initialize(configuration: configuration, processors: [])
        #expect(await Telemetry.client?.deliveryStatus(of: Telemetry.defaultDestinationID)?.queued == 0)
        Telemetry.signal("Fresh")
        #expect(await Telemetry.flush() == .complete)
        #expect(collector.events.map(\.type) == ["Fresh"])
        await Telemetry.terminate()
        await collector.shutdown()
    }

    @Test func theOptOutSurvivesTheErasure() async throws {
        await Telemetry.terminate()
        let collector = try await Collector.start()
        let directory = eraseDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = try eraseConfiguration(collector, directory: directory)
        try await Telemetry.initialize(configuration: configuration, processors: [])
        await Telemetry.setAnalyticsDisabled(true)
        try await Telemetry.removeAllData()
        #expect(await Telemetry.isAnalyticsDisabled)
        await Telemetry.terminate()
        try await Telemetry.initialize(configuration: configuration, processors: [])
        #expect(await Telemetry.isAnalyticsDisabled, "still opted out at the next launch")
        await Telemetry.setAnalyticsDisabled(false)
        await Telemetry.terminate()
        await collector.shutdown()
    }

    @Test func aStorageThatCannotEraseIsReportedNotClaimed() async throws {
        await Telemetry.terminate()
        let collector = try await Collector.start()
        let directory = eraseDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let storage = FlushRecordingStorage()
        try await Telemetry.initialize(
            configuration: eraseConfiguration(collector, directory: directory),
            processors: [],
            storage: storage
        )
        collector.script([.status(503)])
        Telemetry.signal("Queued")
        _ = await Telemetry.flush()
        do {
            try await Telemetry.removeAllData()
            Issue.record("removeAllData claimed to erase a storage that cannot erase")
        } catch {
            #expect(error.code == .dataNotErased)
            #expect(error.message.contains("FlushRecordingStorage"))
        }
        // The queue went all the same.
        #expect(await Telemetry.client?.deliveryStatus(of: Telemetry.defaultDestinationID)?.queued == 0)
        await Telemetry.terminate()
        await collector.shutdown()
    }
}
#endif
