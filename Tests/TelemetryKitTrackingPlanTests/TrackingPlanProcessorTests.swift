import TelemetryKit
import TelemetryKitTesting
import TelemetryKitTypedEvents
import Testing

@testable import TelemetryKitTrackingPlan

struct TrackingPlanProcessorTests {
    let plan = TrackingPlan(CheckoutCompletedByHand.self)

    private func makePipeline(
        _ handling: TrackingPlanProcessor.ViolationHandling
    ) async
        -> (ProcessorPipeline, RecordingLogger)
    {
        let logger = RecordingLogger()
        let processor = TrackingPlanProcessor(plan: plan, onViolation: handling)
        await processor.start(storage: InMemoryProcessorStorage(), logger: logger, emitter: RecordingEmitter())
        return (ProcessorPipeline(processors: [processor], finalizer: .test), logger)
    }

    @Test func warnsOncePerViolationAndKeepsTheEventsByDefault() async throws {
        let (pipeline, logger) = await makePipeline(.warn)

        let first = try await pipeline.process(
            EventInput("Checkout.completed", parameters: ["items": "3"], floatValue: 9)
        )
        _ = try await pipeline.process(EventInput("Checkout.completed", parameters: ["items": "4"], floatValue: 9))
        _ = try await pipeline.process(EventInput("Checkout.complete", floatValue: 9))

        #expect(first.payload == ["items": .string("3")])
        #expect(
            logger.warnings == [
                "tracking plan: 'Checkout.completed' sends 'items' as string; the tracking plan says int",
                "tracking plan: 'Checkout.complete' is not in the tracking plan",
            ]
        )
        #expect(logger.entries.map(\.eventName) == ["Checkout.completed", "Checkout.complete"])
    }

    @Test func dropsViolatingEventsWhenConfiguredAndKeepsConformingOnes() async throws {
        let (pipeline, logger) = await makePipeline(.drop)

        let error = await #expect(throws: ProcessorError.self) {
            try await pipeline.process(EventInput("Checkout.completed", parameters: ["items": 3]))
        }
        guard case .eventFiltered = error else {
            Issue.record("expected .eventFiltered, got \(String(describing: error))")
            return
        }
        let kept = try await pipeline.process(EventInput(CheckoutCompletedByHand(items: 2, coupon: "SPRING", total: 5)))

        #expect(kept.type == "Checkout.completed")
        #expect(kept.payload == ["items": .int(2), "coupon": .string("SPRING")])
        #expect(kept.floatValue == 5)
        #expect(logger.warnings == ["tracking plan: 'Checkout.completed' is missing its float value (dropped)"])
    }

    @Test func sdkEventsPassUnchecked() async throws {
        let (pipeline, logger) = await makePipeline(.drop)

        let event = try await pipeline.process(
            EventInput("Session.custom", parameters: ["x": 1], skipsReservedPrefixValidation: true)
        )

        #expect(event.type == "Session.custom")
        #expect(logger.warnings.isEmpty)
    }

    @Test func stopsReportingAfterTheBound() {
        var reported = TrackingPlanProcessor.ReportedViolations()
        for index in 0..<TrackingPlanProcessor.maximumReportedViolations {
            #expect(reported.insert(.unknownEvent(name: "E\(index)")) == .new)
        }
        #expect(reported.insert(.unknownEvent(name: "E0")) == .alreadyReported)
        #expect(reported.insert(.unknownEvent(name: "more")) == .limitReached)
        #expect(reported.insert(.unknownEvent(name: "still more")) == .suppressed)
    }
}
