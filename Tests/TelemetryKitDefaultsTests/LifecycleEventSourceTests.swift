import Foundation
import TelemetryKitDefaults
import TelemetryKitSupport
import TelemetryKitTesting
import Testing

/// A lifecycle source driven by the test, standing in for the system's notifications.
final class ManualLifecycleEventSource: LifecycleEventSource {
    private let handlers = Locked([(id: Int, handler: @Sendable (AppLifecycle.Signal) -> Void)]())
    private let nextID = Locked(0)

    func subscribe(_ handler: @escaping @Sendable (AppLifecycle.Signal) -> Void) -> LifecycleSubscription {
        let id = nextID.withLock { id -> Int in
            id += 1
            return id
        }
        handlers.withLock { $0.append((id, handler)) }
        return LifecycleSubscription { [weak self] in
            self?.handlers.withLock { $0.removeAll { $0.id == id } }
        }
    }

    /// Reports `signal` as the system would, synchronously.
    func post(_ signal: AppLifecycle.Signal) {
        for entry in handlers.current { entry.handler(signal) }
    }

    var subscriberCount: Int { handlers.current.count }
}

/// A storage that records every `flush()` together with the session history stored then.
final class FlushRecordingStorage: ProcessorStorage {
    let base = InMemoryProcessorStorage()
    /// The stored session history at each flush.
    let historiesAtFlush = Locked([Data?]())

    func data(forKey key: String) async -> Data? { await base.data(forKey: key) }
    func set(_ data: Data?, forKey key: String) async { await base.set(data, forKey: key) }
    func string(forKey key: String) async -> String? { await base.string(forKey: key) }
    func set(_ value: String?, forKey key: String) async { await base.set(value, forKey: key) }
    func integer(forKey key: String) async -> Int { await base.integer(forKey: key) }
    func set(_ value: Int, forKey key: String) async { await base.set(value, forKey: key) }
    func bool(forKey key: String) async -> Bool { await base.bool(forKey: key) }
    func set(_ value: Bool, forKey key: String) async { await base.set(value, forKey: key) }
    func removeValue(forKey key: String) async { await base.removeValue(forKey: key) }

    func flush() async {
        let history = await base.data(forKey: SessionTrackingProcessor.Keys.historyStorageKey)
        historiesAtFlush.withLock { $0.append(history) }
    }
}

/// A started client that follows a manual lifecycle source, with a manual clock, a spy
/// transmitter and a stream of delivery reports (delivery happens only on a flush: the
/// timer's interval is an hour of a clock that is not advanced that far).
struct LifecycleRig {
    let client: TelemetryClient
    let source = ManualLifecycleEventSource()
    let clock = ManualClock()
    let spy = SpyEventTransmitter()
    let cache = InMemoryEventCache()
    let storage = FlushRecordingStorage()
    let sessions = SessionTrackingProcessor(timeZoneOffset: 0)
    let subscription: LifecycleSubscription
    let reports: AsyncStream<DeliveryReport>

    init() async {
        let (reports, continuation) = AsyncStream.makeStream(of: DeliveryReport.self)
        self.reports = reports
        client = TelemetryClient(
            configuration: .init(appID: "TEST-APP"),
            processors: [sessions],
            destinations: [
                Destination(
                    id: "spy",
                    transmitter: spy,
                    cache: cache,
                    policy: DeliveryPolicy(flushInterval: 3600, backoff: BackoffPolicy(jitter: 0))
                )
            ],
            storage: storage,
            logger: RecordingLogger(),
            clock: clock,
            observer: { continuation.yield($0) }
        )
        subscription = client.lifecycle.follow(source)
        await client.start()
    }
}

@Suite("Lifecycle signals from an injected source")
struct LifecycleEventSourceTests {
    typealias SessionKeys = SessionTrackingProcessor.Keys

    @Test func aNewSessionStartsAfterFiveMinutesInTheBackground() async throws {
        let rig = await LifecycleRig()
        let first = rig.sessions.activeSessionID

        rig.clock.advance(by: 40)
        rig.source.post(.didEnterBackground)
        rig.clock.advance(by: 299)
        rig.source.post(.willEnterForeground)
        await rig.sessions.waitUntilIdle()
        #expect(rig.sessions.activeSessionID == first)

        rig.clock.advance(by: 20)
        rig.source.post(.didEnterBackground)
        rig.clock.advance(by: 300)
        rig.source.post(.willEnterForeground)
        await rig.sessions.waitUntilIdle()
        #expect(rig.sessions.activeSessionID != first)

        rig.client.event("App.resumed")
        await rig.client.flush()
        let events = rig.spy.deliveredEvents
        #expect(events.filter { $0.type == SessionKeys.sessionStartedEvent }.count == 2)
        let resumed = try #require(events.last)
        #expect(resumed.type == "App.resumed")
        #expect(resumed.sessionID == rig.sessions.activeSessionID.uuidString)
        #expect(resumed.payload[SessionKeys.totalSessionsCount] == .int(2))
        // The first session ran from its start to its last activity: a trip to the background
        // shorter than five minutes does not end it.
        #expect(resumed.payload[SessionKeys.previousSessionSeconds] == .int(40 + 299 + 20))
        await rig.client.shutdown()
    }

    @Test func durationsLeaveOutBackgroundTimeUnlessAskedNotTo() async throws {
        let rig = await LifecycleRig()
        rig.client.startDurationEvent("Foreground.only")
        rig.client.startDurationEvent("Wall.clock", includeBackgroundTime: true)

        rig.clock.advance(by: 10)
        rig.source.post(.didEnterBackground)
        rig.clock.advance(by: 400)
        rig.source.post(.willEnterForeground)
        rig.clock.advance(by: 5)
        rig.client.stopAndSendDurationEvent("Foreground.only")
        rig.client.stopAndSendDurationEvent("Wall.clock")
        await rig.client.flush()

        let events = rig.spy.deliveredEvents
        #expect(events.first { $0.type == "Foreground.only" }?.floatValue == 15)
        #expect(events.first { $0.type == "Wall.clock" }?.floatValue == 415)
        await rig.client.shutdown()
    }

    @Test(.timeLimit(.minutes(1)))
    func enteringTheBackgroundSavesTheStateThenSendsTheQueue() async throws {
        let rig = await LifecycleRig()
        await rig.client.send("Checkout.completed")
        rig.clock.advance(by: 75)

        rig.source.post(.didEnterBackground)
        var reports = rig.reports.makeAsyncIterator()
        let report = try #require(await reports.next())

        #expect(report.successCount == 3)  // newInstallDetected, Session.started, Checkout.completed
        #expect(
            rig.spy.deliveredEvents.map(\.type) == [
                SessionKeys.newInstallDetectedEvent, SessionKeys.sessionStartedEvent, "Checkout.completed",
            ]
        )
        // The storage was flushed before the send, holding the session as long as it lasted.
        let saved = try #require(rig.storage.historiesAtFlush.current.last ?? nil)
        let history = try JSONDecoder().decode(SavedHistory.self, from: saved)
        #expect(history.sessions.map(\.seconds) == [75])
        await rig.client.shutdown()
    }

    @Test(.timeLimit(.minutes(1)))
    func terminatingSendsTheQueue() async throws {
        let rig = await LifecycleRig()
        await rig.client.send("Last.words")

        rig.source.post(.willTerminate)
        var reports = rig.reports.makeAsyncIterator()
        let report = try #require(await reports.next())

        #expect(report.successCount == 3)
        #expect(rig.spy.deliveredEvents.last?.type == "Last.words")
        // Flushed when the client started, on the signal, and by the signal's delivering flush().
        #expect(rig.storage.historiesAtFlush.current.count == 3)
        await rig.client.shutdown()
    }

    @Test func aCancelledSubscriptionStopsTheSignals() async throws {
        let source = ManualLifecycleEventSource()
        let lifecycle = AppLifecycle()
        let received = Locked([AppLifecycle.Signal]())
        lifecycle.observe { signal in received.withLock { $0.append(signal) } }

        let subscription = lifecycle.follow(source)
        source.post(.didEnterBackground)
        source.post(.willEnterForeground)
        subscription.cancel()
        source.post(.willTerminate)

        #expect(received.current == [.didEnterBackground, .willEnterForeground])
        #expect(source.subscriberCount == 0)
    }

    @Test func aReleasedSubscriptionStopsTheSignalsToo() async throws {
        let source = ManualLifecycleEventSource()
        do {
            let subscription = AppLifecycle().follow(source)
            #expect(source.subscriberCount == 1)
            _ = subscription
        }
        #expect(source.subscriberCount == 0)
    }

    /// The session tracker's saved history, read with its documented field names.
    struct SavedHistory: Decodable {
        struct Session: Decodable { var seconds: Double }
        var sessions: [Session]
    }
}
