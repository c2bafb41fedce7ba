import TelemetryKit
import TelemetryKitPreviewFilter
import TelemetryKitTesting
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct PreviewFilterProcessorTests {
    @Test func dropsEveryEventWhileXcodeRendersPreviews() async throws {
        let filter = PreviewFilterProcessor(environment: ["XCODE_RUNNING_FOR_PREVIEWS": "1", "HOME": "/tmp"])
        let pipeline = ProcessorPipeline(processors: [filter], finalizer: .test)

        #expect(filter.isRunningForPreviews)
        for name in ["Screen.shown", "TelemetryDeck.Session.started"] {
            let error = await #expect(throws: ProcessorError.self) {
                try await pipeline.process(EventInput(name, parameters: ["screen": "home"]))
            }
            guard case .eventFiltered = error else {
                Issue.record("expected .eventFiltered, got \(String(describing: error))")
                return
            }
        }
    }

    @Test(
        arguments: [
            [:],
            ["XCODE_RUNNING_FOR_PREVIEWS": "0"],
            ["XCODE_RUNNING_FOR_PREVIEWS": ""],
            ["HOME": "/tmp", "PATH": "/usr/bin"],
        ] as [[String: String]]
    )
    func passesEventsUnchangedOutsidePreviews(environment: [String: String]) async throws {
        let filter = PreviewFilterProcessor(environment: environment)
        let pipeline = ProcessorPipeline(processors: [filter], finalizer: .test)

        let event = try await pipeline.process(
            EventInput("Screen.shown", parameters: ["screen": "home"], floatValue: 2.5)
        )

        #expect(!filter.isRunningForPreviews)
        #expect(event.type == "Screen.shown")
        #expect(event.payload == ["screen": .string("home")])
        #expect(event.floatValue == 2.5)
    }

    @Test func defaultsToTheProcessEnvironment() {
        let expected = ProcessInfo.processInfo.environment["XCODE_RUNNING_FOR_PREVIEWS"] == "1"
        #expect(PreviewFilterProcessor().isRunningForPreviews == expected)
    }
}

/// The filter inside a real `TelemetryClient`: dropped events are counted as filtered.
struct PreviewFilterClientTests {
    @Test func aClientInPreviewsDeliversNothingAndCountsTheEventsAsFiltered() async throws {
        let harness = await TestHarness.make(
            processors: [PreviewFilterProcessor(environment: ["XCODE_RUNNING_FOR_PREVIEWS": "1"])]
        )

        await harness.client.send(EventInput("Screen.shown"))
        await harness.client.send(EventInput("Button.tapped"))
        await harness.client.flush()

        #expect(harness.spy.batches.isEmpty)
        #expect(await harness.client.stats.filtered == 2)
    }
}
