import TelemetryKit
import TelemetryKitTesting
import TelemetryKitUserIdentifier
import Testing

/// The processor inside a real `TelemetryClient`, seeded by `setUserIdentifier`.
struct UserIdentifierClientTests {
    private let finalizer = EventFinalizer(appID: "TEST-APP", salt: "", logger: SilentLogger())

    @Test func resolutionOrderThroughTheClient() async throws {
        let harness = await TestHarness.make(processors: [UserIdentifierProcessor(defaultUser: "default-user")])

        await harness.client.send(EventInput("First"))
        harness.client.setUserIdentifier("client-user")
        await harness.client.send(EventInput("Second"))
        await harness.client.send(EventInput("Third", customUserID: "event-user"))
        harness.client.setUserIdentifier(nil)
        await harness.client.send(EventInput("Fourth"))
        await harness.client.flush()

        #expect(harness.spy.deliveredEvents.map(\.type) == ["First", "Second", "Third", "Fourth"])
        #expect(
            harness.spy.deliveredEvents.map(\.clientUser) == [
                finalizer.clientUser(for: "default-user"),
                finalizer.clientUser(for: "client-user"),
                finalizer.clientUser(for: "event-user"),
                finalizer.clientUser(for: "default-user"),
            ]
        )
    }

    @Test func twoClientsSharingStorageShareTheInstallIdentifier() async throws {
        let shared = InMemoryProcessorStorage()
        let first = await TestHarness.make(processors: [UserIdentifierProcessor()], storage: shared)
        let second = await TestHarness.make(processors: [UserIdentifierProcessor()], storage: shared)
        let other = await TestHarness.make(processors: [UserIdentifierProcessor()], storage: InMemoryProcessorStorage())

        for harness in [first, second, other] {
            await harness.client.send(EventInput("Screen.shown"))
            await harness.client.flush()
        }

        let users = [first, second, other].map { $0.spy.deliveredEvents.first?.clientUser }
        let stored = try #require(await shared.string(forKey: UserIdentifierProcessor.Keys.installationIdentifier))
        #expect(users[0] == finalizer.clientUser(for: stored))
        #expect(users[1] == users[0])
        #expect(users[2] != nil)
        #expect(users[2] != users[0])
    }
}
