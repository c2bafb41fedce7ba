#if Tools
import Foundation
import Synchronization
import Testing
import TelemetryKitCollector
import TelemetryKitDefaults
import TelemetryKitTesting

/// A launch on a device not unlocked since it started: the data directory cannot be opened
/// (here: a file stands where the directory should be, as real as a refused `open`), the
/// injected source says protected data is unavailable, and the SDK waits instead of failing.
/// Part of the serialized facade suite.
extension FacadeTests {
    /// Protected data that becomes available when the test says so.
    final class ManualProtectedData: ProtectedDataSource {
        private struct State {
            var available = false
            var handlers: [UUID: @Sendable () -> Void] = [:]
        }

        private let state = Mutex(State())

        func isAvailable() async -> Bool { state.withLock { $0.available } }

        func whenAvailable(_ handler: @escaping @Sendable () -> Void) -> LifecycleSubscription {
            let id = UUID()
            state.withLock { $0.handlers[id] = handler }
            return LifecycleSubscription { [self] in
                _ = state.withLock { $0.handlers.removeValue(forKey: id) }
            }
        }

        /// How many wait for the unlock.
        var waiting: Int { state.withLock { $0.handlers.count } }

        /// The user unlocks the device.
        func unlock() {
            let handlers = state.withLock { state in
                state.available = true
                defer { state.handlers = [:] }
                return state.handlers
            }
            for handler in handlers.values { handler() }
        }
    }

    @Test func aLockedDeviceKeepsEventsInMemoryAndStartsOnUnlock() async throws {
        await Telemetry.terminate()
        let collector = try await Collector.start()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("telemetrykit-locked-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        // What a protected directory is to a locked device: there, but not openable.
        try Data("locked".utf8).write(to: directory)
        let protectedData = ManualProtectedData()
        Telemetry.protectedDataSource = protectedData
        defer { Telemetry.protectedDataSource = nil }

        var configuration = Telemetry.Config(
            appID: "LOCKED-APP",
            namespace: "locked",
            apiBaseURL: try #require(URL(string: collector.baseURL)),
            dataDirectory: directory
        )
        configuration.deliveryPolicy = DeliveryPolicy(flushInterval: 3600)
        let logger = RecordingLogger()
        // No throw: the SDK waits for the unlock.
        try await Telemetry.initialize(configuration: configuration, processors: [], logger: logger)
        #expect(Telemetry.client == nil)
        #expect(logger.messages(at: .warning).contains { $0.contains("has not been unlocked") })
        #expect(protectedData.waiting == 1)
        // Called again while locked: still one wait, so the unlock starts the SDK once.
        try await Telemetry.initialize(configuration: configuration, processors: [], logger: logger)
        #expect(Telemetry.client == nil)
        #expect(protectedData.waiting == 1)

        for number in 0..<3 {
            Telemetry.signal("WhileLocked", parameters: ["n": "\(number)"])
        }
        #expect(await Telemetry.flush() == .incomplete(remaining: 3), "held in memory and counted")

        // Unlocked: the directory can be opened now, and the SDK starts by itself.
        try FileManager.default.removeItem(at: directory)
        protectedData.unlock()
        #expect(await conditionHolds(within: 10) { Telemetry.client != nil })
        Telemetry.signal("AfterUnlock")
        #expect(await Telemetry.flush() == .complete)
        #expect(collector.events.map(\.type) == ["WhileLocked", "WhileLocked", "WhileLocked", "AfterUnlock"])
        #expect(
            collector.events.compactMap { $0.payload["n"] } == [.string("0"), .string("1"), .string("2")],
            "in the order they were sent"
        )
        await Telemetry.terminate()
        await collector.shutdown()
    }

    @Test func anUnusableDirectoryOnAnUnlockedDeviceIsStillAnError() async throws {
        await Telemetry.terminate()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("telemetrykit-broken-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("not a directory".utf8).write(to: directory)
        let protectedData = ManualProtectedData()
        protectedData.unlock()
        Telemetry.protectedDataSource = protectedData
        defer { Telemetry.protectedDataSource = nil }
        let configuration = Telemetry.Config(appID: "BROKEN-APP", namespace: "broken", dataDirectory: directory)
        do {
            try await Telemetry.initialize(configuration: configuration, processors: [])
            Issue.record("initialize accepted a data directory that is a file")
        } catch {
            #expect(error.code == .unusableDataDirectory)
        }
    }
}
#endif
