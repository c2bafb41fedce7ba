import Foundation
import TelemetryKit
import TelemetryKitSupport
import TelemetryKitTesting
import Testing

@testable import TelemetryKitAccessibility

extension AccessibilityProcessor {
    /// Starts the processor as a client does: its lifecycle and clock are attached first.
    func start(storage: any ProcessorStorage, logger: any Logging, emitter: RecordingEmitter) async {
        attach(lifecycle: emitter.lifecycle, clock: emitter.clock)
        await start(storage: storage, logger: logger, emitter: emitter as any EventSending)
    }
}

/// A snapshot source that counts its readings and returns a settable snapshot.
final class CountingSource: Sendable {
    private let state: Locked<(count: Int, snapshot: AccessibilitySnapshot?)>

    init(_ snapshot: AccessibilitySnapshot?) {
        state = Locked((0, snapshot))
    }

    var readings: Int { state.withLock { $0.count } }

    func set(_ snapshot: AccessibilitySnapshot?) {
        state.withLock { $0.snapshot = snapshot }
    }

    var source: AccessibilityProcessor.SnapshotSource {
        { [self] in
            state.withLock { state in
                state.count += 1
                return state.snapshot
            }
        }
    }
}

private let darkLarge = AccessibilitySnapshot(
    isBoldTextEnabled: true,
    isReduceMotionEnabled: false,
    preferredContentSizeCategory: "L",
    colorScheme: "Dark",
    layoutDirection: "leftToRight",
    screenResolutionWidth: 430.0,
    screenResolutionHeight: 932.0
)

private func payload(
    _ processor: AccessibilityProcessor,
    parameters: EventParameters = ["screen": "home"]
) async throws
    -> [String: PayloadValue]
{
    let pipeline = ProcessorPipeline(processors: [processor], finalizer: EventFinalizer(appID: "APP"))
    let payload = try await pipeline.process(EventInput("x", parameters: parameters)).payload
    // A reading the event found due runs in the background; the tests count it.
    await processor.readingFinished()
    return payload
}

/// The processor with `source`, started as a client starts it (the first reading done).
private func started(
    _ source: @escaping AccessibilityProcessor.SnapshotSource,
    clock: ManualClock = ManualClock()
) async -> AccessibilityProcessor {
    let processor = AccessibilityProcessor(clock: clock, snapshot: source)
    await processor.start(
        storage: InMemoryProcessorStorage(),
        logger: SilentLogger(),
        emitter: RecordingEmitter(clock: clock)
    )
    return processor
}

struct AccessibilityProcessorTests {
    @Test func keysAreTheSpecNames() {
        #expect(
            AccessibilityProcessor.Keys.all == [
                "TelemetryDeck.Accessibility.isBoldTextEnabled",
                "TelemetryDeck.Accessibility.isReduceMotionEnabled",
                "TelemetryDeck.Accessibility.preferredContentSizeCategory",
                "TelemetryDeck.UserPreference.colorScheme",
                "TelemetryDeck.UserPreference.layoutDirection",
                "TelemetryDeck.Device.screenResolutionWidth",
                "TelemetryDeck.Device.screenResolutionHeight",
                "TelemetryDeck.Accessibility.isInvertColorsEnabled",
                "TelemetryDeck.Accessibility.isDarkerSystemColorsEnabled",
                "TelemetryDeck.Accessibility.isReduceTransparencyEnabled",
                "TelemetryDeck.Accessibility.shouldDifferentiateWithoutColor",
                "TelemetryDeck.Device.orientation",
                "TelemetryDeck.Device.screenScaleFactor",
            ]
        )
    }

    /// The four extra accessibility flags and the two display facts of TelemetryDeck v3,
    /// where the platform reports them (an injected snapshot stands in for the system).
    @Test func appleOnlyFlagsAndDisplayFactsWhenTheSnapshotHasThem() async throws {
        var snapshot = darkLarge
        snapshot.isInvertColorsEnabled = true
        snapshot.isDarkerSystemColorsEnabled = false
        snapshot.isReduceTransparencyEnabled = true
        snapshot.shouldDifferentiateWithoutColor = false
        snapshot.orientation = AccessibilitySnapshot.orientationName(
            isPortrait: false,
            isUpsideDown: false,
            isLandscapeLeft: true,
            isLandscapeRight: false
        )
        snapshot.screenScaleFactor = 3
        let processor = await started(CountingSource(snapshot).source)
        let values = try await payload(processor)
        #expect(values["TelemetryDeck.Accessibility.isInvertColorsEnabled"] == .bool(true))
        #expect(values["TelemetryDeck.Accessibility.isDarkerSystemColorsEnabled"] == .bool(false))
        #expect(values["TelemetryDeck.Accessibility.isReduceTransparencyEnabled"] == .bool(true))
        #expect(values["TelemetryDeck.Accessibility.shouldDifferentiateWithoutColor"] == .bool(false))
        #expect(values["TelemetryDeck.Device.orientation"] == .string("landscapeLeft"))
        #expect(values["TelemetryDeck.Device.screenScaleFactor"] == .double(3))
        #expect(values.count == 14)
    }

    @Test func orientationNames() {
        typealias Snapshot = AccessibilitySnapshot
        #expect(
            Snapshot.orientationName(
                isPortrait: true,
                isUpsideDown: false,
                isLandscapeLeft: false,
                isLandscapeRight: false
            ) == "portrait"
        )
        #expect(
            Snapshot.orientationName(
                isPortrait: false,
                isUpsideDown: true,
                isLandscapeLeft: false,
                isLandscapeRight: false
            ) == "portraitUpsideDown"
        )
        #expect(
            Snapshot.orientationName(
                isPortrait: false,
                isUpsideDown: false,
                isLandscapeLeft: false,
                isLandscapeRight: true
            ) == "landscapeRight"
        )
        // Face up, face down, unknown: nothing is sent.
        #expect(
            Snapshot.orientationName(
                isPortrait: false,
                isUpsideDown: false,
                isLandscapeLeft: false,
                isLandscapeRight: false
            ) == nil
        )
    }

    @Test func snapshotValuesWithTheirTypes() async throws {
        let processor = await started(CountingSource(darkLarge).source)
        #expect(
            try await payload(processor) == [
                "screen": .string("home"),
                "TelemetryDeck.Accessibility.isBoldTextEnabled": .bool(true),
                "TelemetryDeck.Accessibility.isReduceMotionEnabled": .bool(false),
                "TelemetryDeck.Accessibility.preferredContentSizeCategory": .string("L"),
                "TelemetryDeck.UserPreference.colorScheme": .string("Dark"),
                "TelemetryDeck.UserPreference.layoutDirection": .string("leftToRight"),
                "TelemetryDeck.Device.screenResolutionWidth": .double(430.0),
                "TelemetryDeck.Device.screenResolutionHeight": .double(932.0),
            ]
        )
    }

    @Test func missingFieldsAreLeftOut() async throws {
        let macLike = AccessibilitySnapshot(isReduceMotionEnabled: true, colorScheme: "Light")
        let processor = await started(CountingSource(macLike).source)
        #expect(
            try await payload(processor, parameters: [:]) == [
                "TelemetryDeck.Accessibility.isReduceMotionEnabled": .bool(true),
                "TelemetryDeck.UserPreference.colorScheme": .string("Light"),
            ]
        )
        let nothing = await started(CountingSource(nil).source)
        #expect(try await payload(nothing, parameters: [:]) == [:])
    }

    @Test func readingsAreCachedForOneHourOfTheInjectedClock() async throws {
        let clock = ManualClock()
        let source = CountingSource(darkLarge)
        let processor = AccessibilityProcessor(clock: clock, snapshot: source.source)
        await processor.start(
            storage: InMemoryProcessorStorage(),
            logger: SilentLogger(),
            emitter: RecordingEmitter(clock: clock)
        )
        #expect(source.readings == 1)

        source.set(AccessibilitySnapshot(colorScheme: "Light"))
        for step in [0.0, 1_800, 1_799] {  // up to 3 599 s after the reading
            clock.advance(by: step)
            #expect(try await payload(processor)[AccessibilityProcessor.Keys.colorScheme] == .string("Dark"))
        }
        #expect(source.readings == 1)

        clock.advance(by: 1)  // 3 600 s: stale; this event still gets the last reading
        #expect(try await payload(processor)[AccessibilityProcessor.Keys.colorScheme] == .string("Dark"))
        #expect(source.readings == 2)
        let refreshed = try await payload(processor)
        #expect(refreshed[AccessibilityProcessor.Keys.colorScheme] == .string("Light"))
        #expect(refreshed[AccessibilityProcessor.Keys.isBoldTextEnabled] == nil)
        #expect(source.readings == 2)

        clock.advance(by: 3_599)
        _ = try await payload(processor)
        #expect(source.readings == 2)
    }

    @Test func clockComesFromTheClientWhenNotGiven() async throws {
        let clientClock = ManualClock()
        let source = CountingSource(darkLarge)
        let processor = AccessibilityProcessor(snapshot: source.source)
        await processor.start(
            storage: InMemoryProcessorStorage(),
            logger: SilentLogger(),
            emitter: RecordingEmitter(clock: clientClock)
        )
        _ = try await payload(processor)
        #expect(source.readings == 1)
        clientClock.advance(by: 3_600)
        _ = try await payload(processor)
        #expect(source.readings == 2)
    }

    @Test func givenClockIsNotReplacedByTheClients() async throws {
        let ownClock = ManualClock()
        let clientClock = ManualClock()
        let source = CountingSource(darkLarge)
        let processor = AccessibilityProcessor(clock: ownClock, snapshot: source.source)
        await processor.start(
            storage: InMemoryProcessorStorage(),
            logger: SilentLogger(),
            emitter: RecordingEmitter(clock: clientClock)
        )
        clientClock.advance(by: 7_200)
        _ = try await payload(processor)
        #expect(source.readings == 1)
        ownClock.advance(by: 3_600)
        _ = try await payload(processor)
        #expect(source.readings == 2)
    }

    @Test func customCacheDurationAndAClockGoingBackwards() async throws {
        let clock = ManualClock()
        let source = CountingSource(darkLarge)
        let processor = AccessibilityProcessor(cacheDuration: 60, clock: clock, snapshot: source.source)
        await processor.start(
            storage: InMemoryProcessorStorage(),
            logger: SilentLogger(),
            emitter: RecordingEmitter(clock: clock)
        )
        _ = try await payload(processor)
        clock.advance(by: 59)
        _ = try await payload(processor)
        #expect(source.readings == 1)
        clock.advance(by: 1)
        _ = try await payload(processor)
        #expect(source.readings == 2)
        clock.advance(by: -10)
        _ = try await payload(processor)
        #expect(source.readings == 3)
    }

    @Test(arguments: [
        ("UICTContentSizeCategoryXS", "XS"),
        ("UICTContentSizeCategoryL", "L"),
        ("UICTContentSizeCategoryXXXL", "XXXL"),
        ("UICTContentSizeCategoryAccessibilityM", "AccessibilityM"),
        ("UICTContentSizeCategoryAccessibilityXXXL", "AccessibilityXXXL"),
    ])
    func contentSizeCategoryNames(rawValue: String, name: String) {
        #expect(AccessibilitySnapshot.contentSizeCategoryName(rawValue: rawValue) == name)
    }

    @Test(arguments: ["_UICTContentSizeCategoryUnspecified", "UICTContentSizeCategoryHuge", "", "L"])
    func unknownContentSizeCategoriesAreDropped(rawValue: String) {
        #expect(AccessibilitySnapshot.contentSizeCategoryName(rawValue: rawValue) == nil)
    }
}

#if os(Linux)
struct LinuxAccessibilityTests {
    @Test func addsNothingOnLinux() async throws {
        let processor = AccessibilityProcessor()
        #expect(processor.isActive == false)
        #expect(AccessibilitySnapshot.isSystemSupported == false)
        await processor.start(
            storage: InMemoryProcessorStorage(),
            logger: SilentLogger(),
            emitter: RecordingEmitter(clock: ManualClock())
        )
        let input = EventInput("Screen.shown", parameters: ["screen": "home", "count": 3])
        let pipeline = ProcessorPipeline(processors: [processor], finalizer: EventFinalizer(appID: "APP"))
        let event = try await pipeline.process(input)
        #expect(event.payload == ["screen": .string("home"), "count": .int(3)])
        #expect(event.type == "Screen.shown")
    }

    @Test func systemSnapshotIsNilOnLinux() async {
        #expect(await AccessibilitySnapshot.system() == nil)
    }
}
#endif
