import Benchmark
import BenchmarkSupport
import Foundation
import TelemetryKit
import TelemetryKitAccessibility
import TelemetryKitCalendar
import TelemetryKitDevice
import TelemetryKitLocale
import TelemetryKitTesting
import TelemetryKitTrialConversion

/// Each processor alone, with a pass-through `next` that finalizes the event.
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .perEvent

    let finalizer = benchmarkFinalizer
    let input = screenShownInput
    let next: nonisolated(nonsending) @Sendable (EventInput, EventContext) async throws -> Event = { input, context in
        finalizer.finalize(input, context: context)
    }

    func register(_ name: String, _ processor: any EventProcessor) {
        Benchmark("Processor: \(name)") { benchmark in
            let context = EventContext(userIdentifier: "user-42", isTestMode: false)
            for _ in benchmark.scaledIterations {
                blackHole(try await processor.process(input, context: context, next: next))
            }
        }
    }

    register("None (finalizer only)", PassThroughProcessor())
    register("Device", DeviceProcessor())
    register("Locale", LocaleProcessor())
    register("Calendar", CalendarProcessor())
    register(
        "Accessibility (snapshot source, cached)",
        AccessibilityProcessor(snapshot: {
            AccessibilitySnapshot(isBoldTextEnabled: false, isReduceMotionEnabled: false, colorScheme: "Dark")
        })
    )
    register("Accessibility (default: no-op on Linux)", AccessibilityProcessor())
    register("TrialConversion", TrialConversionProcessor())
}
