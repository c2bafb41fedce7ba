import Foundation
import TelemetryKit
import Testing

// This target depends on `TelemetryKit` alone (no runtime, no testing kit): what a third
// party's processor plugin compiles against. The processors below are written as such a
// plugin would write them, and run through the protocol's own entry points.

/// Adds a plan parameter and drops events of blocked names, as a plugin would.
private struct PlanTagger: SynchronousEventProcessor {
    let plan: String
    let blockedNames: Set<String>

    func process(_ input: inout EventInput, context: inout EventContext) throws {
        if blockedNames.contains(input.name) { throw ProcessorError.eventFiltered }
        input.parameters["plan"] = plan
        context.isTestMode = true
    }
}

/// An asynchronous plugin: reads its setting from storage when started, renames on the way.
private actor RenamingProcessor: EventProcessor {
    private var prefix = ""

    func start(storage: any ProcessorStorage, logger: any Logging, emitter: any EventSending) async {
        prefix = await storage.string(forKey: "prefix") ?? ""
    }

    nonisolated func process(
        _ input: EventInput,
        context: EventContext,
        next: nonisolated(nonsending) @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event {
        var input = input
        input.name = await prefix + input.name
        return try await next(input, context)
    }
}

/// A storage, a logger and an emitter a plugin's own tests can write against the API alone.
private actor DictionaryStorage: ProcessorStorage {
    private var values: [String: Data] = [:]
    func data(forKey key: String) -> Data? { values[key] }
    func set(_ data: Data?, forKey key: String) { values[key] = data }
    func string(forKey key: String) -> String? { values[key].flatMap { String(data: $0, encoding: .utf8) } }
    func set(_ value: String?, forKey key: String) { values[key] = value.map { Data($0.utf8) } }
    func integer(forKey key: String) -> Int { string(forKey: key).flatMap(Int.init) ?? 0 }
    func set(_ value: Int, forKey key: String) { set(String(value), forKey: key) }
    func bool(forKey key: String) -> Bool { string(forKey: key) == "true" }
    func set(_ value: Bool, forKey key: String) { set(value ? "true" : "false", forKey: key) }
}

private struct SilentLogger: Logging {
    func log(_ level: LogLevel, _ message: @autoclosure () -> String) {}
}

private struct NoEmitter: EventSending {
    func send(_ input: EventInput) async {}
}

/// A plugin that counts the app's trips to the background, from the lifecycle it is handed.
private final class BackgroundCounter: AppLifecycleAware, @unchecked Sendable {
    // Safe: `count` and `observation` are only read or written while `lock` is held.
    private let lock = NSLock()
    private var count = 0
    private var observation: AppLifecycleObservation?

    var backgroundings: Int { lock.withLock { count } }

    func attach(lifecycle: any AppLifecycleObserving, clock: any TelemetryClock) {
        let observation = lifecycle.observe { [weak self] signal in
            guard signal == .didEnterBackground, let self else { return }
            self.lock.withLock { self.count += 1 }
        }
        lock.withLock { self.observation = observation }
    }

    func stop() async {
        lock.withLock { observation }?.cancel()
    }

    func process(
        _ input: EventInput,
        context: EventContext,
        next: nonisolated(nonsending) @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event {
        try await next(input, context)
    }
}

/// A lifecycle source as a plugin's own tests write one, against the protocol alone.
private final class HandDrivenLifecycle: AppLifecycleObserving, @unchecked Sendable {
    // Safe: `handlers` and `lastID` are only read or written while `lock` is held.
    private let lock = NSLock()
    private var handlers: [(id: Int, handler: @Sendable (AppLifecycleSignal) -> Void)] = []
    private var lastID = 0

    var observerCount: Int { lock.withLock { handlers.count } }

    func observe(_ handler: @escaping @Sendable (AppLifecycleSignal) -> Void) -> AppLifecycleObservation {
        let id = lock.withLock {
            lastID += 1
            handlers.append((lastID, handler))
            return lastID
        }
        return AppLifecycleObservation { self.lock.withLock { self.handlers.removeAll { $0.id == id } } }
    }

    func send(_ signal: AppLifecycleSignal) {
        for handler in lock.withLock({ handlers.map(\.handler) }) { handler(signal) }
    }
}

struct ProcessorPluginTests {
    /// The end of a pipeline, as the runtime's finalizer would be: the input as an event.
    @Sendable static func finalize(_ input: EventInput, _ context: EventContext) -> Event {
        var payload: [String: PayloadValue] = [:]
        for (key, value) in input.parameters.values { payload[key] = value }
        return Event(
            appID: "app",
            type: input.name,
            clientUser: context.userIdentifier ?? "anonymous",
            receivedAt: input.timestamp,
            payload: payload,
            isTestMode: context.isTestMode ?? false
        )
    }

    @Test func aSynchronousProcessorChangesTheEventAndItsContext() async throws {
        let tagger = PlanTagger(plan: "pro", blockedNames: [])
        var input = EventInput("Screen.shown", parameters: ["screen": "home"])
        var context = EventContext(userIdentifier: "user-1")
        try tagger.process(&input, context: &context)
        #expect(input.parameters["plan"] as? String == "pro")
        #expect(input.parameters["screen"] as? String == "home")
        #expect(context.isTestMode == true)

        let event = try await tagger.process(
            EventInput("Screen.shown"),
            context: EventContext(userIdentifier: "user-2"),
            next: { Self.finalize($0, $1) }
        )
        #expect(event.type == "Screen.shown")
        #expect(event.clientUser == "user-2")
        #expect(event.payload["plan"] == .string("pro"))
        #expect(event.isTestMode == "true")
    }

    @Test func aSynchronousProcessorFiltersByThrowing() async {
        let tagger = PlanTagger(plan: "pro", blockedNames: ["Debug.ping"])
        await #expect(throws: ProcessorError.self) {
            _ = try await tagger.process(
                EventInput("Debug.ping"),
                context: EventContext(),
                next: { Self.finalize($0, $1) }
            )
        }
    }

    @Test func anAsynchronousProcessorReadsItsStorageWhenStarted() async throws {
        let storage = DictionaryStorage()
        await storage.set("Beta.", forKey: "prefix")
        let renamer = RenamingProcessor()
        await renamer.start(storage: storage, logger: SilentLogger(), emitter: NoEmitter())
        let event = try await renamer.process(
            EventInput("Opened"),
            context: EventContext(),
            next: { Self.finalize($0, $1) }
        )
        #expect(event.type == "Beta.Opened")
    }

    @Test func aProcessorHearsTheLifecycleItIsHandedUntilItStops() async {
        let lifecycle = HandDrivenLifecycle()
        let counter = BackgroundCounter()
        counter.attach(lifecycle: lifecycle, clock: SystemClock())
        lifecycle.send(.didEnterBackground)
        lifecycle.send(.willEnterForeground)
        lifecycle.send(.didEnterBackground)
        #expect(counter.backgroundings == 2)
        #expect(lifecycle.observerCount == 1)

        await counter.stop()
        lifecycle.send(.didEnterBackground)
        #expect(counter.backgroundings == 2, "no signal after the observation was cancelled")
        #expect(lifecycle.observerCount == 0)
    }
}
