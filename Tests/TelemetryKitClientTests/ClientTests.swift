import Foundation
import TelemetryKit
import TelemetryKitSupport
import TelemetryKitTesting
import Testing

struct ClientOrderingTests {
    @Test func eventsAreProcessedInCallOrder() async {
        let harness = await TestHarness.make()
        for n in 0..<500 {
            harness.client.event("Numbered", parameters: ["n": n])
        }
        await harness.client.flush()
        #expect(harness.spy.deliveredEvents.compactMap(\.number) == (0..<500).map(Int64.init))
    }

    @Test func hundredConcurrentTasksOfAThousandEvents() async {
        let harness = await TestHarness.make()
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<100 {
                group.addTask {
                    for n in 0..<1000 {
                        harness.client.event("Concurrent", parameters: ["task": task, "n": n])
                    }
                }
            }
        }
        await harness.client.flush()
        expectEveryTaskInOrderOnce(harness.spy.deliveredEvents, tasks: 100, eventsPerTask: 1000)
    }

    @Test func awaitedSendReturnsOnceCached() async {
        let harness = await TestHarness.make()
        await harness.client.send(EventInput("Awaited"))
        #expect(await harness.cache.count() == 1)
        await harness.client.send("Second", parameters: ["a": 1])
        #expect(await harness.cache.count() == 2)
        #expect(harness.spy.deliveredEvents.isEmpty)
    }

    @Test func awaitedSendsMixedWithEventsKeepEveryTasksOrder() async {
        // Awaited sends process inline when the intake is idle and queue otherwise; either
        // way each task's events arrive in its own order, once each, and are counted.
        let harness = await TestHarness.make()
        await withTaskGroup(of: Void.self) { group in
            for task in 0..<20 {
                group.addTask {
                    for n in 0..<200 {
                        if (n + task) % 3 == 0 {
                            await harness.client.send("Mixed", parameters: ["task": task, "n": n])
                        } else {
                            harness.client.event("Mixed", parameters: ["task": task, "n": n])
                        }
                    }
                }
            }
        }
        await harness.client.flush()
        expectEveryTaskInOrderOnce(harness.spy.deliveredEvents, tasks: 20, eventsPerTask: 200)
        let stats = await harness.client.stats
        #expect(stats.processed == 4_000)
        #expect(stats.destinations.values.first?.accepted == 4_000)
    }

    @Test func eventQueuedDuringAnAwaitedSendFollowsIt() async {
        // A processor that sends from inside the pipeline: its event is queued while the
        // awaited send is being processed and must come after it, not be lost.
        let harness = await TestHarness.make(processors: [EchoOnceProcessor()])
        await harness.client.send("First")
        await harness.client.send("Second")
        await harness.client.flush()
        #expect(harness.spy.deliveredEvents.map(\.type) == ["First", "Echo.First", "Second", "Echo.Second"])
    }

    @Test func eventIDsAreDistinctVersion7UUIDs() async {
        let harness = await TestHarness.make()
        for n in 0..<5_000 {
            harness.client.event("Numbered", parameters: ["n": n])
        }
        await harness.client.flush()
        let ids = harness.spy.deliveredEvents.map(\.id)
        #expect(ids.count == 5_000)
        #expect(Set(ids).count == 5_000)
        for id in ids.prefix(300) {
            let text = id.uuidString
            // xxxxxxxx-xxxx-7xxx-[89AB]xxx-xxxxxxxxxxxx (time-ordered, see `EventID`)
            #expect(Array(text)[14] == "7")
            #expect("89AB".contains(Array(text)[19]))
        }
    }

    @Test func processorStartRunsInOrderBeforeEventsAndStopAtShutdown() async {
        let log = CallLog()
        let harness = await TestHarness.make(
            processors: ["a", "b"].map { OrderRecordingProcessor(name: $0, log: log) },
            start: false
        )
        harness.client.event("Early")
        await harness.client.start()
        await harness.client.flush()
        await harness.client.shutdown()
        #expect(
            log.entries == [
                "attach:a", "attach:b", "start:a", "start:b", "process:a", "process:b", "stop:b", "stop:a",
            ]
        )
    }

    @Test func theClientReadsCallSiteCapturingProcessorsPerEvent() async {
        let plain = OrderRecordingProcessor(name: "plain", log: CallLog())
        let capturing = TaskLocalCapture()
        let harness = await TestHarness.make(processors: [plain, capturing])
        TaskLocalCapture.$requestID.withValue("r-1") {
            harness.client.event("Inside")
        }
        harness.client.event("Outside")
        await harness.client.flush()
        #expect(harness.spy.deliveredEvents.map { $0.payload["request_id"] } == [.string("r-1"), nil])
    }

    @Test func preStartBufferReplaysInOrderWithOriginalTimestamps() async {
        let harness = await TestHarness.make(start: false)
        let early = Date(timeIntervalSince1970: 1_600_000_000.25)
        for n in 0..<5 {
            harness.client.event(
                EventInput("Early", parameters: ["n": n], timestamp: early.addingTimeInterval(Double(n)))
            )
        }
        await harness.client.start()
        await harness.client.flush()
        let events = harness.spy.deliveredEvents
        #expect(events.compactMap(\.number) == [0, 1, 2, 3, 4])
        #expect(events.map(\.receivedAt.timeIntervalSince1970) == (0..<5).map { 1_600_000_000.25 + Double($0) })
    }

    @Test func preStartBufferOverflowDropsOldestAndCounts() async {
        let harness = await TestHarness.make(preStartBufferLimit: 10, start: false)
        for n in 0..<25 {
            harness.client.event("Early", parameters: ["n": n])
        }
        await harness.client.start()
        await harness.client.flush()
        #expect(harness.spy.deliveredEvents.compactMap(\.number) == (15..<25).map(Int64.init))
        #expect(await harness.client.stats.droppedBeforeStart == 15)
        #expect(harness.logger.warnings.contains { $0.contains("15 event(s) sent before start were dropped") })
    }

    @Test func failingProcessorDropsOnlyThatEventAndTheClientKeepsWorking() async {
        let harness = await TestHarness.make(processors: [FailingProcessor(failingName: "Bad")])
        harness.client.event("Good1")
        harness.client.event("Bad")
        harness.client.event("Good2")
        await harness.client.flush()
        #expect(harness.spy.deliveredEvents.map(\.type) == ["Good1", "Good2"])
        let stats = await harness.client.stats
        #expect(stats.failed == 1)
        #expect(stats.processed == 3)
        #expect(
            harness.logger.entries.contains {
                $0.level == .error && $0.message.contains("boom") && $0.eventName == "Bad"
            }
        )
    }

    @Test func emittedEventsRunTheWholePipeline() async {
        actor Emitting: EventProcessor {
            var emitter: (any EventSending)?
            func start(storage: any ProcessorStorage, logger: any Logging, emitter: any EventSending) async {
                self.emitter = emitter
            }
            func emit() async { await emitter?.send(EventInput("Emitted")) }
            nonisolated func process(
                _ input: EventInput,
                context: EventContext,
                next: nonisolated(nonsending) @Sendable (EventInput, EventContext) async throws -> Event
            ) async throws -> Event {
                var context = context
                context.addParameter("seenBy", value: "emitting")
                return try await next(input, context)
            }
        }
        let emitting = Emitting()
        let harness = await TestHarness.make(processors: [
            emitting, ParameterAddingProcessor(key: "tail", value: "yes"),
        ])
        await emitting.emit()
        await harness.client.flush()
        let event = harness.spy.deliveredEvents.first
        #expect(event?.type == "Emitted")
        #expect(event?.payload["seenBy"] == .string("emitting"))
        #expect(event?.payload["tail"] == .string("yes"))
    }

    @Test func userIdentifierAndDefaultParametersSeedTheContext() async {
        let harness = await TestHarness.make(salt: "s")
        harness.client.setUserIdentifier("alice")
        harness.client.setDefaultParameter("plan", value: "pro")
        harness.client.event("One", parameters: ["plan": "override"])
        harness.client.event("Two")
        await harness.client.flush()
        harness.client.setDefaultParameter("plan", value: nil)
        harness.client.event("Three")
        await harness.client.flush()
        let events = harness.spy.deliveredEvents
        #expect(events.map(\.clientUser) == Array(repeating: SHA256Hex.digest("alices"), count: 3))
        #expect(events.map { $0.payload["plan"] } == [.string("override"), .string("pro"), nil])
    }

    @Test func clientStateIsCapturedWhenTheEventIsSent() async {
        let harness = await TestHarness.make(start: false)
        harness.client.event("Anonymous")
        harness.client.setUserIdentifier("bob")
        harness.client.setDefaultParameter("plan", value: "pro")
        harness.client.event("Identified")
        await harness.client.start()
        await harness.client.flush()
        let events = harness.spy.deliveredEvents
        #expect(events.map(\.clientUser) == [SHA256Hex.digest("unknown user"), SHA256Hex.digest("bob")])
        #expect(events.map { $0.payload["plan"] } == [nil, .string("pro")])
    }

    @Test func eventsAfterShutdownAreDroppedWithAWarning() async {
        let harness = await TestHarness.make()
        harness.client.event("Before")
        await harness.client.shutdown()
        harness.client.event("After")
        #expect(harness.spy.deliveredEvents.map(\.type) == ["Before"])
        #expect(harness.logger.warnings.contains { $0.contains("after shutdown") })
    }
}

/// Emits `Echo.<name>` once for every event that is not itself an echo.
private struct EchoOnceProcessor: EventProcessor {
    final class Box: Sendable {
        let emitter = Locked<(any EventSending)?>(nil)
    }
    let box = Box()

    func start(storage: any ProcessorStorage, logger: any Logging, emitter: any EventSending) async {
        box.emitter.set(emitter)
    }

    func process(
        _ input: EventInput,
        context: EventContext,
        next: nonisolated(nonsending) @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event {
        if !input.name.hasPrefix("Echo."), let emitter = box.emitter.current {
            await emitter.send(EventInput("Echo." + input.name))
        }
        return try await next(input, context)
    }
}

/// Every one of `tasks` tasks' events (`task`, `n` = 0..<eventsPerTask) arrived once, in order.
private func expectEveryTaskInOrderOnce(
    _ events: [Event],
    tasks: Int,
    eventsPerTask: Int,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(events.count == tasks * eventsPerTask, sourceLocation: sourceLocation)
    var perTask = [Int64: [Int64]]()
    for event in events {
        guard case .int(let task) = event.payload["task"], let n = event.number else { continue }
        perTask[task, default: []].append(n)
    }
    #expect(perTask.count == tasks, sourceLocation: sourceLocation)
    for (_, numbers) in perTask {
        #expect(numbers == (0..<eventsPerTask).map(Int64.init), sourceLocation: sourceLocation)
    }
    #expect(Set(events.map(\.id)).count == tasks * eventsPerTask, sourceLocation: sourceLocation)
}

/// Reads a task-local of the sender's task at the call site (`CallSiteCapturing`).
private struct TaskLocalCapture: CallSiteCapturing, SynchronousEventProcessor {
    @TaskLocal static var requestID: String?

    func captureCallSite() -> [String: PayloadValue]? {
        Self.requestID.map { ["request_id": .string($0)] }
    }

    func process(_ input: inout EventInput, context: inout EventContext) throws {}
}
