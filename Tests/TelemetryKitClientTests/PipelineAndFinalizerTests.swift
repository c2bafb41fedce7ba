import Foundation
import TelemetryKit
import TelemetryKitSupport
import TelemetryKitTesting
import Testing

struct PipelineTests {
    @Test func processorsRunInArrayOrder() async throws {
        let log = CallLog()
        let pipeline = ProcessorPipeline(
            processors: ["a", "b", "c"].map { OrderRecordingProcessor(name: $0, log: log) },
            finalizer: EventFinalizer(appID: "APP")
        )
        let event = try await pipeline.process(EventInput("Screen.shown"))
        #expect(log.entries == ["process:a", "process:b", "process:c"])
        #expect(event.type == "Screen.shown")
        #expect(event.appID == "APP")
    }

    @Test func laterProcessorsWinOnTheSameMetadataKey() async throws {
        let pipeline = ProcessorPipeline(
            processors: [
                ParameterAddingProcessor(key: "k", value: "first"), ParameterAddingProcessor(key: "k", value: "second"),
            ],
            finalizer: EventFinalizer(appID: "APP")
        )
        let event = try await pipeline.process(EventInput("x"))
        #expect(event.payload["k"] == .string("second"))
    }

    @Test func removeParameterRemovesEarlierMetadata() async throws {
        struct Remover: EventProcessor {
            func process(
                _ input: EventInput,
                context: EventContext,
                next: nonisolated(nonsending) @Sendable (EventInput, EventContext) async throws -> Event
            ) async throws -> Event {
                var context = context
                context.removeParameter("k")
                #expect(context.metadata["k"] == nil)
                return try await next(input, context)
            }
        }
        let pipeline = ProcessorPipeline(
            processors: [ParameterAddingProcessor(key: "k", value: "v"), Remover()],
            finalizer: EventFinalizer(appID: "APP")
        )
        let event = try await pipeline.process(EventInput("x"))
        #expect(event.payload["k"] == nil)
    }

    @Test func filteredEventThrowsAndLaterProcessorsDoNotRun() async throws {
        let log = CallLog()
        let pipeline = ProcessorPipeline(
            processors: [FilteringProcessor(names: ["x"]), OrderRecordingProcessor(name: "after", log: log)],
            finalizer: EventFinalizer(appID: "APP")
        )
        await #expect(throws: ProcessorError.self) {
            _ = try await pipeline.process(EventInput("x"))
        }
        #expect(log.entries.isEmpty)
    }
}

struct FinalizerTests {
    /// Adds a precomputed dictionary that a test can replace between events.
    struct SwitchableFacts: EventProcessor {
        let facts: Locked<[String: PayloadValue]>

        func process(
            _ input: EventInput,
            context: EventContext,
            next: nonisolated(nonsending) @Sendable (EventInput, EventContext) async throws -> Event
        ) async throws -> Event {
            var context = context
            context.addParameters(facts.current)
            return try await next(input, context)
        }
    }

    @Test func reusedMetadataFollowsChangedDictionaries() async throws {
        let device = Locked<[String: PayloadValue]>(["os": "Linux", "version": 12])
        let session = Locked<[String: PayloadValue]>(["count": 1])
        let pipeline = ProcessorPipeline(
            processors: [SwitchableFacts(facts: device), SwitchableFacts(facts: session)],
            finalizer: EventFinalizer(appID: "APP")
        )
        let first = try await pipeline.process(EventInput("a", parameters: ["own": 1]))
        let second = try await pipeline.process(EventInput("b"))
        session.set(["count": 2])
        let third = try await pipeline.process(EventInput("c", parameters: ["count": 99]))
        let fourth = try await pipeline.process(EventInput("d"))
        #expect(first.payload == ["os": "Linux", "version": 12, "count": 1, "own": 1])
        #expect(second.payload == ["os": "Linux", "version": 12, "count": 1])
        #expect(third.payload == ["os": "Linux", "version": 12, "count": 99])
        #expect(fourth.payload == ["os": "Linux", "version": 12, "count": 2])
    }

    @Test func nonFiniteMetadataIsSanitizedOnEveryEvent() async throws {
        let facts = Locked<[String: PayloadValue]>(["ratio": .double(.nan)])
        let logger = RecordingLoggerForCore()
        let pipeline = ProcessorPipeline(
            processors: [SwitchableFacts(facts: facts)],
            finalizer: EventFinalizer(appID: "APP", logger: logger)
        )
        let first = try await pipeline.process(EventInput("a"))
        let second = try await pipeline.process(EventInput("b"))
        #expect(first.payload["ratio"] == .string("NaN"))
        #expect(second.payload["ratio"] == .string("NaN"))
        #expect(logger.count == 2)
    }

    @Test func inputParameterBeatsContextMetadata() {
        var context = EventContext()
        context.addParameter("screen", value: "from-context")
        context.addParameter("only-context", value: 1)
        let event = EventFinalizer(appID: "APP").finalize(
            EventInput("x", parameters: ["screen": "from-input"]),
            context: context
        )
        #expect(event.payload["screen"] == .string("from-input"))
        #expect(event.payload["only-context"] == .int(1))
    }

    @Test func knownSHA256VectorForUnknownUser() {
        let event = EventFinalizer(appID: "APP").finalize(EventInput("x"), context: EventContext())
        // printf 'unknown user' | sha256sum
        #expect(event.clientUser == "a180cc36fda2c5b8e827a24bb49c3e1fd292b224c204a900f6c2398207fe95c0")
        #expect(SHA256Hex.digest("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func saltChangesClientUser() {
        let context = EventContext(userIdentifier: "user-1")
        let plain = EventFinalizer(appID: "APP").finalize(EventInput("x"), context: context)
        let salted = EventFinalizer(appID: "APP", salt: "pepper").finalize(EventInput("x"), context: context)
        #expect(plain.clientUser == SHA256Hex.digest("user-1"))
        #expect(salted.clientUser == SHA256Hex.digest("user-1pepper"))
        #expect(plain.clientUser != salted.clientUser)
        #expect(plain.clientUser.count == 64)
        #expect(plain.clientUser == plain.clientUser.lowercased())
    }

    @Test func fieldsFromInputAndContext() {
        let session = UUID()
        let timestamp = Date(timeIntervalSince1970: 1_718_460_000.123_456)
        let event = EventFinalizer(appID: "APP").finalize(
            EventInput("Screen.shown", floatValue: 2.5, timestamp: timestamp),
            context: EventContext(sessionID: session, isTestMode: true)
        )
        #expect(event.sessionID == session.uuidString)
        #expect(event.isTestMode == "true")
        #expect(event.floatValue == 2.5)
        // The first whole millisecond not before the input's moment.
        #expect(abs(event.receivedAt.timeIntervalSince1970 - 1_718_460_000.124) < 0.000_1)
        #expect(event.receivedAt >= timestamp)
        #expect(event.receivedAt.timeIntervalSince1970 != 1_718_460_000)
        let other = EventFinalizer(appID: "APP").finalize(EventInput("Screen.shown"), context: EventContext())
        #expect(other.id != event.id)
    }

    /// Ids are RFC 9562 version 7: the event's millisecond first, so a durable cache's id
    /// index grows at its end (see `EventID`).
    @Test func eventIDsStartWithTheEventsMillisecond() {
        let finalizer = EventFinalizer(appID: "APP")
        func id(at seconds: Double) -> String {
            finalizer.finalize(
                EventInput("Screen.shown", timestamp: Date(timeIntervalSince1970: seconds)),
                context: EventContext()
            ).id.uuidString
        }
        // 1,718,460,000,123 ms is 0x0190_1C32_A77B.
        let first = id(at: 1_718_460_000.123)
        // Within the millisecond before: rounded up to it (an event is never dated earlier
        // than it happened).
        let sameMillisecond = id(at: 1_718_460_000.122_6)
        let next = id(at: 1_718_460_000.124)
        #expect(first.hasPrefix("01901C32-A77B-7"))
        #expect(sameMillisecond.hasPrefix("01901C32-A77B-7"))
        #expect(next.hasPrefix("01901C32-A77C-7"))
        #expect(first != sameMillisecond)
        #expect(["8", "9", "A", "B"].contains(first.dropFirst(19).prefix(1)))
        #expect(next > first)
        // Before 1970 (a wrong clock): the time bits are zero, the id is still version 7.
        #expect(id(at: -5).hasPrefix("00000000-0000-7"))
    }

    @Test func nonFiniteNumbersAreHandledWithWarnings() throws {
        let logger = RecordingLoggerForCore()
        let event = EventFinalizer(appID: "APP", logger: logger).finalize(
            EventInput("x", parameters: ["nan": Double.nan, "inf": Double.infinity, "ok": 1.5], floatValue: .nan),
            context: EventContext()
        )
        #expect(event.floatValue == nil)
        #expect(event.payload["nan"] == .string("NaN"))
        #expect(event.payload["inf"] == .string("Infinity"))
        #expect(event.payload["ok"] == .double(1.5))
        #expect(logger.count == 3)
        let data = try JSONEncoder().encode(event)
        let decoded = try JSONDecoder().decode(Event.self, from: data)
        #expect(decoded == event)
    }

    @Test func payloadValueEncodingOfNonFiniteNeverThrows() throws {
        let data = try JSONEncoder().encode([PayloadValue.double(.infinity), .double(-.infinity), .double(.nan)])
        #expect(String(decoding: data, as: UTF8.self) == #"["Infinity","-Infinity","NaN"]"#)
    }
}

final class RecordingLoggerForCore: Logging {
    private let messages = Locked([String]())
    func log(_ level: LogLevel, _ message: @autoclosure () -> String) {
        let text = message()
        messages.withLock { $0.append(text) }
    }
    var count: Int { messages.withLock { $0.count } }
}
