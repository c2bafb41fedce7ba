#if SwiftLog
import InMemoryLogging
import Logging
import TelemetryKit
import TelemetryKitClient
import TelemetryKitSupport
import TelemetryKitSwiftLog
import Testing

struct SwiftLogLoggerTests {
    /// A swift-log logger that keeps its entries, at `level` and above.
    private static func makeLogger(level: Logger.Level = .debug) -> (Logger, InMemoryLogHandler) {
        let handler = InMemoryLogHandler()
        var logger = Logger(label: "telemetry.test") { _ in handler }
        logger.logLevel = level
        return (logger, handler)
    }

    @Test(arguments: [
        (LogLevel.debug, Logger.Level.debug),
        (.info, .info),
        (.error, .error),
    ])
    func levelsMapOneToOne(level: LogLevel, expected: Logger.Level) {
        let (logger, handler) = Self.makeLogger()
        let bridge = SwiftLogLogger(logger)

        bridge.log(level, "message at \(level)")

        #expect(handler.entries.map(\.level) == [expected])
        #expect(handler.entries.map(\.message.description) == ["message at \(level)"])
        #expect(handler.entries.first?.metadata == [:])
    }

    @Test func eventNameGoesIntoMetadata() {
        let (logger, handler) = Self.makeLogger()
        let bridge = SwiftLogLogger(logger)

        bridge.log(.error, "cache write failed", eventName: "Checkout.completed")
        bridge.log(.info, "no event", eventName: nil)

        #expect(handler.entries.count == 2)
        #expect(handler.entries.first?.level == .error)
        #expect(handler.entries.first?.message.description == "cache write failed")
        #expect(handler.entries.first?.metadata == [SwiftLogLogger.eventNameMetadataKey: "Checkout.completed"])
        #expect(handler.entries.last?.metadata == [:])
    }

    @Test func messagesBelowTheLoggersLevelAreNeverBuilt() {
        let (logger, handler) = Self.makeLogger(level: .warning)
        let bridge = SwiftLogLogger(logger)
        let built = Locked(0)
        func expensive(_ text: String) -> String {
            built.withLock { $0 += 1 }
            return text
        }

        bridge.log(.debug, expensive("debug"))
        bridge.log(.info, expensive("info"), eventName: "E")
        bridge.log(.warning, expensive("warning"))

        #expect(built.current == 1)
        #expect(handler.entries.map(\.message.description) == ["warning"])
    }

    /// The SDK's own warnings: a NaN floatValue is dropped by the finalizer with a warning
    /// about that event.
    @Test func finalizerWarningsArriveAsErrorsWithTheEventName() {
        let (logger, handler) = Self.makeLogger(level: .info)
        let finalizer = EventFinalizer(appID: "APP", logger: SwiftLogLogger(logger))

        let event = finalizer.finalize(
            EventInput("Measurement.taken", parameters: ["ratio": Double.infinity], floatValue: .nan),
            context: EventContext()
        )

        #expect(event.floatValue == nil)
        #expect(handler.entries.count == 2)
        // v3's three levels: a warning is reported at `.error`.
        #expect(handler.entries.allSatisfy { $0.level == .error })
        #expect(
            handler.entries.allSatisfy { $0.metadata == [SwiftLogLogger.eventNameMetadataKey: "Measurement.taken"] }
        )
        #expect(
            Set(handler.entries.map(\.message.description)) == [
                "floatValue nan is not a finite number and was dropped",
                "parameter 'ratio' is not a finite number; sent as a string",
            ]
        )
    }
}
#endif
