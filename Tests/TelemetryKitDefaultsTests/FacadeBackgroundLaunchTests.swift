import Foundation
import TelemetryKitDefaults
import TelemetryKitSupport
import TelemetryKitTesting
import Testing

/// A source that finds the app in the background when subscribed, as
/// `SystemLifecycleEventSource` does at a launch by a silent push or a background task.
private struct LaunchedInBackgroundSource: LifecycleEventSource {
    let base: ManualLifecycleEventSource

    func subscribe(_ handler: @escaping @Sendable (AppLifecycle.Signal) -> Void) -> LifecycleSubscription {
        let subscription = base.subscribe(handler)
        handler(.didEnterBackground)
        return subscription
    }
}

/// `Telemetry.initialize` follows the lifecycle source before the processors start, so a
/// launch in the background opens no session. Part of the serialized facade suite.
extension FacadeTests {
    @Test func aLaunchInTheBackgroundOpensNoSessionUntilTheForeground() async throws {
        await Telemetry.terminate()
        let previousSource = Telemetry.lifecycleEventSource
        defer { Telemetry.lifecycleEventSource = previousSource }
        let source = ManualLifecycleEventSource()
        Telemetry.lifecycleEventSource = LaunchedInBackgroundSource(base: source)
        let sessions = SessionTrackingProcessor(timeZoneOffset: 0)
        let spy = SpyEventTransmitter()
        let clock = ManualClock()
        try await Telemetry.initialize(
            configuration: config,
            processors: [UserIdentifierProcessor(), sessions],
            cache: InMemoryEventCache(),
            transmitter: spy,
            logger: RecordingLogger(),
            storage: InMemoryProcessorStorage(),
            clock: clock
        )
        let pendingSession = sessions.activeSessionID

        await Telemetry.event("Push.received")
        await Telemetry.flush()
        #expect(spy.deliveredEvents.map(\.type) == ["Push.received"])
        #expect(spy.deliveredEvents.map(\.sessionID) == [pendingSession.uuidString])
        spy.reset()

        clock.advance(by: 30)
        source.post(.willEnterForeground)
        await sessions.waitUntilIdle()
        await Telemetry.event("App.opened")
        await Telemetry.flush()
        typealias Keys = SessionTrackingProcessor.Keys
        let opened = spy.deliveredEvents
        #expect(opened.map(\.type) == [Keys.newInstallDetectedEvent, Keys.sessionStartedEvent, "App.opened"])
        #expect(opened.allSatisfy { $0.sessionID == pendingSession.uuidString })
        #expect(opened.last?.payload[Keys.totalSessionsCount] == .int(1))
        await Telemetry.terminate()
    }
}
