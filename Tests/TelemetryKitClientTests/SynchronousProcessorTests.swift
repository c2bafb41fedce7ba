import Foundation
import TelemetryKit
import TelemetryKitTesting
import Testing

/// The pipeline's synchronous processors (`SynchronousEventProcessor`) mixed
/// with async middleware: order, changes, filtering and failures as with middleware alone.
struct SynchronousProcessorTests {
    /// Records its name and renames the event by appending it; sets a context parameter.
    struct SyncStep: SynchronousEventProcessor {
        let name: String
        let log: CallLog

        func process(_ input: inout EventInput, context: inout EventContext) throws {
            log.append(name)
            input.name += ".\(name)"
            context.addParameter("step.\(name)", value: input.name)
        }
    }

    /// The same as an async middleware.
    struct AsyncStep: EventProcessor {
        let name: String
        let log: CallLog

        func process(
            _ input: EventInput,
            context: EventContext,
            next: nonisolated(nonsending) @Sendable (EventInput, EventContext) async throws -> Event
        ) async throws -> Event {
            log.append(name)
            var input = input
            input.name += ".\(name)"
            var context = context
            context.addParameter("step.\(name)", value: input.name)
            return try await next(input, context)
        }
    }

    struct Dropping: SynchronousEventProcessor {
        let droppedName: String
        func process(_ input: inout EventInput, context: inout EventContext) throws {
            if input.name == droppedName { throw ProcessorError.eventFiltered }
        }
    }

    struct Failing: SynchronousEventProcessor {
        struct Broken: Error {}
        func process(_ input: inout EventInput, context: inout EventContext) throws {
            throw Broken()
        }
    }

    /// The README's synchronous processor, word for word.
    struct ABTestProcessor: SynchronousEventProcessor {
        let variant: String
        func process(_ input: inout EventInput, context: inout EventContext) throws {
            context.addParameter("ABTest.variant", value: variant)  // throw .eventFiltered to drop
        }
    }

    @Test func theReadmesSynchronousProcessorAddsTheVariant() async throws {
        let pipeline = ProcessorPipeline(
            processors: [ABTestProcessor(variant: "B")],
            finalizer: EventFinalizer(appID: "APP")
        )
        let event = try await pipeline.process(EventInput("Screen.shown", parameters: ["screen": "home"]))
        #expect(event.payload["ABTest.variant"] == .string("B"))
        #expect(event.payload["screen"] == .string("home"))
    }

    @Test func synchronousAndAsyncProcessorsRunInArrayOrderAndSeeEachOthersChanges() async throws {
        let log = CallLog()
        let pipeline = ProcessorPipeline(
            processors: [
                SyncStep(name: "a", log: log), AsyncStep(name: "b", log: log),
                SyncStep(name: "c", log: log), SyncStep(name: "d", log: log), AsyncStep(name: "e", log: log),
            ],
            finalizer: EventFinalizer(appID: "APP")
        )
        let event = try await pipeline.process(EventInput("x"))
        #expect(log.entries == ["a", "b", "c", "d", "e"])
        #expect(event.type == "x.a.b.c.d.e")
        #expect(event.payload["step.a"] == .string("x.a"))
        #expect(event.payload["step.b"] == .string("x.a.b"))
        #expect(event.payload["step.d"] == .string("x.a.b.c.d"))
        #expect(event.payload["step.e"] == .string("x.a.b.c.d.e"))
    }

    @Test func aSynchronousProcessorIsAlsoAMiddleware() async throws {
        let log = CallLog()
        let finalizer = EventFinalizer(appID: "APP")
        let event = try await SyncStep(name: "a", log: log).process(EventInput("x"), context: EventContext()) {
            input,
            context in finalizer.finalize(input, context: context)
        }
        #expect(event.type == "x.a")
        #expect(event.payload["step.a"] == .string("x.a"))
        #expect(log.entries == ["a"])
    }

    @Test func aSynchronousFilterDropsTheEventAndLaterProcessorsDoNotRun() async throws {
        let log = CallLog()
        let pipeline = ProcessorPipeline(
            processors: [Dropping(droppedName: "secret"), SyncStep(name: "after", log: log)],
            finalizer: EventFinalizer(appID: "APP")
        )
        await #expect(throws: ProcessorError.self) {
            _ = try await pipeline.process(EventInput("secret"))
        }
        #expect(log.entries.isEmpty)
        #expect(try await pipeline.process(EventInput("public")).type == "public.after")
    }

    @Test func throughTheClientFilteredAndFailedSynchronousProcessorsAreCountedAndReported() async throws {
        let harness = await TestHarness.make(processors: [Dropping(droppedName: "secret")])
        #expect(await harness.client.send("secret") == .filtered)
        #expect(await harness.client.send("public") == .cached)

        let failing = await TestHarness.make(processors: [Failing()])
        #expect(await failing.client.send("x") == .processingFailed)
        #expect(failing.logger.messages(at: .error).contains { $0.contains("a processor failed") })

        let stats = await harness.client.stats
        #expect(stats.processed == 2)
        #expect(stats.filtered == 1)
        #expect(await failing.client.stats.failed == 1)
    }
}
