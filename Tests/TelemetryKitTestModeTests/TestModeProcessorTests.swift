import TelemetryKit
import TelemetryKitTestMode
import TelemetryKitTesting
import Testing

struct TestModeProcessorTests {
    /// What this test target was compiled with; SwiftPM builds it in the processor's configuration.
    private static let compiledWithDebug: Bool = {
        #if DEBUG
        return true
        #else
        return false
        #endif
    }()

    @Test(arguments: [true, false])
    func theOverrideDecides(testMode: Bool) async throws {
        let pipeline = ProcessorPipeline(processors: [TestModeProcessor(override: testMode)], finalizer: .test)

        let event = try await pipeline.process(EventInput("Screen.shown"))

        #expect(event.isTestMode == (testMode ? "true" : "false"))
    }

    @Test func withoutOverrideTestModeFollowsTheBuildConfiguration() async throws {
        let processor = TestModeProcessor()
        let pipeline = ProcessorPipeline(processors: [processor], finalizer: .test)

        let event = try await pipeline.process(EventInput("Screen.shown"))

        #expect(TestModeProcessor.isDebugBuild == Self.compiledWithDebug)
        #expect(processor.isTestMode == Self.compiledWithDebug)
        #expect(event.isTestMode == (Self.compiledWithDebug ? "true" : "false"))
    }

    @Test(arguments: [true, false])
    func replacesAValueAnEarlierStepSet(testMode: Bool) async throws {
        let pipeline = ProcessorPipeline(processors: [TestModeProcessor(override: testMode)], finalizer: .test)

        let event = try await pipeline.process(EventInput("Screen.shown"), context: EventContext(isTestMode: !testMode))

        #expect(event.isTestMode == (testMode ? "true" : "false"))
    }
}
