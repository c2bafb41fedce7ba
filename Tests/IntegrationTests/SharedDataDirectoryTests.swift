import Foundation
import TelemetryKitTesting
import Testing

// `makeClient` and `dataDirectory(for:appGroupContainer:)` are what `Telemetry.initialize`
// runs; calling them directly gives each "process" its own client.
@testable import TelemetryKitDefaults

/// An app and its extension (or two server workers) on one data directory: one install, one
/// user.
@Suite struct SharedDataDirectoryTests {
    @Test func theAppGroupContainerHoldsTheDataUnlessADirectoryIsGiven() throws {
        let container = URL(fileURLWithPath: "/containers/group.com.example.app", isDirectory: true)
        var config = Telemetry.Config(appID: "APP-1", namespace: "ns")
        #expect(try Telemetry.dataDirectory(for: config, appGroupContainer: { _ in container }) == nil)

        config.appGroupIdentifier = "group.com.example.app"
        var asked: [String] = []
        let resolved = try Telemetry.dataDirectory(for: config) { identifier in
            asked.append(identifier)
            return container
        }
        #expect(resolved?.path == "/containers/group.com.example.app/TelemetryKit/APP-1")
        #expect(asked == ["group.com.example.app"])

        config.dataDirectory = URL(fileURLWithPath: "/srv/telemetry", isDirectory: true)
        #expect(
            try Telemetry.dataDirectory(for: config, appGroupContainer: { _ in container })?.path == "/srv/telemetry"
        )
    }

    @Test func anAppGroupWithoutAContainerIsATypedError() async throws {
        var config = Telemetry.Config(appID: "APP-1", namespace: "ns")
        config.appGroupIdentifier = "group.missing"
        #expect(throws: TelemetryError.self) {
            try Telemetry.dataDirectory(for: config, appGroupContainer: { _ in nil })
        }
        do {
            _ = try Telemetry.dataDirectory(for: config, appGroupContainer: { _ in nil })
        } catch {
            #expect(error.code == .unusableDataDirectory)
            #expect(error.message.contains("'group.missing' has no container"))
            #expect(error.message.contains("set Telemetry.Config.dataDirectory"))
        }
        // On Linux there are no app groups: the system resolver finds none, and the default
        // assembly says so instead of writing somewhere unshared.
        #if !canImport(Darwin)
        #expect(Telemetry.systemAppGroupContainer("group.missing") == nil)
        #expect(throws: TelemetryError.self) {
            try Telemetry.defaultStorage(for: config, logger: RecordingLogger())
        }
        #endif
    }

    /// The app runs first; its extension starts on the same directory later: the extension's
    /// events hash to the same `clientUser`, and it is no new install.
    @Test func anExtensionOnTheSharedDirectoryIsTheSameUserAndNoNewInstall() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        var config = Telemetry.Config(appID: "APP-1", namespace: "ns", salt: "pepper")
        config.dataDirectory = directory.url

        let appSpy = SpyEventTransmitter()
        let app = try await Self.client(config, appSpy)
        await app.start()
        app.event("App.opened")
        await app.flush()
        await app.shutdown()

        let extensionSpy = SpyEventTransmitter()
        let widget = try await Self.client(config, extensionSpy)
        await widget.start()
        widget.event("Widget.refreshed")
        await widget.flush()
        await widget.shutdown()

        let appEvents = appSpy.deliveredEvents
        let extensionEvents = extensionSpy.deliveredEvents
        #expect(appEvents.map(\.type).contains("TelemetryDeck.Acquisition.newInstallDetected"))
        #expect(!extensionEvents.map(\.type).contains("TelemetryDeck.Acquisition.newInstallDetected"))
        let appUser = try #require(appEvents.first?.clientUser)
        #expect(appEvents.allSatisfy { $0.clientUser == appUser })
        #expect(extensionEvents.allSatisfy { $0.clientUser == appUser })
        let refreshed = try #require(extensionEvents.first { $0.type == "Widget.refreshed" })
        #expect(refreshed.payload["TelemetryDeck.Retention.totalSessionsCount"] == .int(2))
        #expect(refreshed.payload["TelemetryDeck.Acquisition.isNewInstall"] == nil)
    }

    private static func client(_ config: Telemetry.Config, _ spy: SpyEventTransmitter) async throws -> TelemetryClient {
        try await Telemetry.makeClient(
            configuration: config,
            processors: nil,
            cache: InMemoryEventCache(),
            transmitter: spy,
            logger: RecordingLogger(),
            storage: nil,
            destinations: [],
            transformations: [],
            clock: SystemClock()
        ).client
    }
}
