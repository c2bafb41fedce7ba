import TelemetryKit
import TelemetryKitJavaScript
import TelemetryKitTesting
import TelemetryKitTransformations
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// `JavaScriptTransformer` through the transformations framework and a real `TelemetryClient`.
struct JavaScriptTransformerTests {
    /// A started client with destinations "A" and "B", each with its own spy.
    struct TwoDestinations {
        let client: TelemetryClient
        let spyA = SpyEventTransmitter()
        let spyB = SpyEventTransmitter()
        let logger = RecordingLogger()

        init(_ config: TransformationConfiguration) async {
            let storage = InMemoryProcessorStorage()
            let clock = ManualClock()
            let policy = DeliveryPolicy(flushInterval: 3600, backoff: BackoffPolicy(jitter: 0))
            client = TelemetryClient(
                configuration: .init(appID: "APP"),
                destinations: [
                    Destination(id: "A", transmitter: spyA, cache: InMemoryEventCache(), policy: policy),
                    Destination(id: "B", transmitter: spyB, cache: InMemoryEventCache(), policy: policy),
                ],
                transformations: config.transformations(storage: storage, logger: logger, clock: clock),
                storage: storage,
                logger: logger,
                clock: clock
            )
            await client.start()
        }

        /// Sends the events in order, then flushes.
        func send(_ events: [(String, EventParameters)]) async {
            for (name, parameters) in events {
                await client.send(EventInput(name, parameters: parameters))
            }
            await client.flush()
        }
    }

    /// A client whose only transformation is `builder`'s, with JavaScript registered.
    static func client(_ builders: JavaScriptSettingsBuilder...) async -> TwoDestinations {
        var config = TransformationConfiguration()
        config.registerJavaScript()
        for builder in builders { config.setTransformation(builder) }
        return await TwoDestinations(config)
    }

    // MARK: Transformations

    @Test func renamesAKey() async {
        let harness = await Self.client(
            JavaScriptSettingsBuilder(id: "rename", code: "payload.userEmail = payload.email; delete payload.email;")
        )
        await harness.send([("Signup", ["email": "ada@example.com", "plan": "pro"])])
        #expect(harness.spyA.deliveredEvents.map(\.payload) == [["userEmail": "ada@example.com", "plan": "pro"]])
        #expect(harness.spyB.deliveredEvents.map(\.payload) == [["userEmail": "ada@example.com", "plan": "pro"]])
    }

    @Test func addsAComputedKey() async {
        let harness = await Self.client(
            JavaScriptSettingsBuilder(id: "total", code: "payload.total = payload.price * payload.qty")
        )
        await harness.send([("Purchase", ["price": 2.5, "qty": 3]), ("Purchase", ["price": 4.0, "qty": 2])])
        #expect(
            harness.spyA.deliveredEvents.map(\.payload) == [
                ["price": 2.5, "qty": 3, "total": 7.5],
                ["price": 4.0, "qty": 2, "total": .int(8)],
            ]
        )
    }

    @Test func lowercasesAValue() async {
        let harness = await Self.client(
            JavaScriptSettingsBuilder(id: "lower", code: "payload.city = payload.city.toLowerCase()")
        )
        await harness.send([("Visit", ["city": "ZÜRICH"])])
        #expect(harness.spyA.deliveredEvents.map(\.payload) == [["city": "zürich"]])
    }

    @Test func dropsOnACondition() async {
        let harness = await Self.client(
            JavaScriptSettingsBuilder(id: "no-internal", code: "if (payload.email.endsWith('@internal.test')) drop();")
        )
        await harness.send([
            ("Login", ["email": "ada@example.com"]),
            ("Login", ["email": "qa@internal.test"]),
            ("Login", ["email": "bob@example.com"]),
        ])
        let emails = harness.spyA.deliveredEvents.map { $0.payload["email"] }
        #expect(emails == ["ada@example.com", "bob@example.com"])
        #expect(harness.spyB.deliveredEvents.map { $0.payload["email"] } == emails)
        #expect(harness.logger.warnings.isEmpty)
    }

    @Test func destinationScopeChangesOnlyThatDestination() async {
        let harness = await Self.client(
            JavaScriptSettingsBuilder(
                id: "for-a",
                code: "payload.seen_by = scope; payload.screen = payload.screen.toUpperCase();"
            )
            .setScope(.destinations(["A"]))
        )
        await harness.send([("Screen.shown", ["screen": "home"])])
        #expect(harness.spyA.deliveredEvents.map(\.payload) == [["screen": "HOME", "seen_by": "A"]])
        #expect(harness.spyB.deliveredEvents.map(\.payload) == [["screen": "home"]])
    }

    @Test func dropForOneDestinationKeepsTheOther() async {
        let harness = await Self.client(
            JavaScriptSettingsBuilder(id: "drop-in-b", code: "if (scope === 'B') drop();").setScope(.allDestinations)
        )
        await harness.send([("Screen.shown", ["screen": "home"])])
        #expect(harness.spyA.deliveredEvents.map(\.type) == ["Screen.shown"])
        #expect(harness.spyB.deliveredEvents.isEmpty)
    }

    @Test func renamesTheEventThroughEventName() async {
        let harness = await Self.client(
            JavaScriptSettingsBuilder(id: "rename-event", code: "payload.event_name = 'Shop.' + payload.event_name")
        )
        await harness.send([("Purchase", ["items": 3])])
        #expect(harness.spyA.deliveredEvents.map(\.type) == ["Shop.Purchase"])
        #expect(harness.spyA.deliveredEvents.map(\.payload) == [["items": 3]])
    }

    @Test func typesRoundTripThroughTheClient() async {
        let harness = await Self.client(JavaScriptSettingsBuilder(id: "touch", code: "payload.touched = true"))
        await harness.send([
            ("Types", ["int": 42, "double": 0.25, "whole": 2.0, "bool": false, "string": "Ünïcödé ✓ 日本"])
        ])
        #expect(
            harness.spyA.deliveredEvents.map(\.payload) == [
                [
                    "int": .int(42), "double": .double(0.25), "whole": .double(2), "bool": .bool(false),
                    "string": "Ünïcödé ✓ 日本", "touched": true,
                ]
            ]
        )
    }

    @Test func conditionsOfTheSettingsApply() async {
        let harness = await Self.client(
            JavaScriptSettingsBuilder(id: "tag", code: "payload.tagged = 1")
                .setConditions(.just(Condition.equals(variable: "event_name", target: "Purchase")))
        )
        await harness.send([("Purchase", [:]), ("Screen.shown", [:])])
        #expect(harness.spyA.deliveredEvents.map(\.payload) == [["tagged": 1], [:]])
    }

    // MARK: JSON settings

    @Test func loadsFromJSONSettings() async throws {
        var config = TransformationConfiguration()
        config.registerJavaScript()
        try config.load(
            json: Data(
                #"""
                [{"transformation_id": "lower-city", "transformer_id": "JavaScript", "scope": ["A"], "order": 5,
                  "configuration": {"js_code": "payload.city = payload.city.toLowerCase()", "timeout_ms": 100}}]
                """#.utf8
            )
        )
        let harness = await TwoDestinations(config)
        await harness.send([("Visit", ["city": "PARIS"])])
        #expect(harness.spyA.deliveredEvents.map(\.payload) == [["city": "paris"]])
        #expect(harness.spyB.deliveredEvents.map(\.payload) == [["city": "PARIS"]])
    }

    @Test func builderWritesTheJSONConfiguration() {
        let settings = JavaScriptSettingsBuilder(id: "js").setCode("payload.x = 1").setTimeLimit(.milliseconds(120))
            .build()
        #expect(settings.transformerID == "JavaScript")
        #expect(settings.configuration.values == ["js_code": "payload.x = 1", "timeout_ms": 120])
    }

    @Test func unregisteredTransformerLeavesEventsUnchanged() async {
        var config = TransformationConfiguration()
        config.setTransformation(JavaScriptSettingsBuilder(id: "js", code: "payload.x = 1"))
        let harness = await TwoDestinations(config)
        await harness.send([("Visit", ["city": "Paris"])])
        #expect(harness.spyA.deliveredEvents.map(\.payload) == [["city": "Paris"]])
        #expect(
            harness.logger.warnings == [
                "transformation 'js': unknown transformer_id 'JavaScript'; events pass unchanged"
            ]
        )
    }

    // MARK: Failures leave the event unchanged and the pipeline working

    /// Sends a failing event, then one that the script handles, and returns the harness.
    static func failThenRecover(_ code: String, timeLimit: Duration? = nil) async -> TwoDestinations {
        var builder = JavaScriptSettingsBuilder(id: "fragile", code: code)
        if let timeLimit { builder = builder.setTimeLimit(timeLimit) }
        let harness = await client(builder)
        await harness.send([("Bad", ["n": 1]), ("Good", ["n": 2])])
        return harness
    }

    /// The event names of the warnings logged so far.
    static func warningEventNames(_ logger: RecordingLogger) -> [String?] {
        logger.entries.filter { $0.level >= .warning }.map(\.eventName)
    }

    @Test func syntaxErrorLeavesEventsUnchangedAndIsReportedOnce() async {
        let harness = await Self.client(JavaScriptSettingsBuilder(id: "broken", code: "payload.x = ;"))
        await harness.send([("First", ["n": 1]), ("Second", ["n": 2])])
        #expect(harness.spyA.deliveredEvents.map(\.type) == ["First", "Second"])
        #expect(harness.spyA.deliveredEvents.map(\.payload) == [["n": 1], ["n": 2]])
        #expect(
            harness.logger.warnings == [
                "JavaScript transformation 'broken' is skipped, events pass unchanged: "
                    + "syntax error: SyntaxError: Unexpected token ';' (line 1)"
            ]
        )
    }

    @Test func thrownExceptionLeavesTheEventUnchanged() async {
        let harness = await Self.failThenRecover(
            "if (payload.event_name === 'Bad') { throw new TypeError('no bad events'); } payload.n *= 10;"
        )
        #expect(harness.spyA.deliveredEvents.map(\.payload) == [["n": 1], ["n": 20]])
        #expect(
            harness.logger.warnings == [
                "JavaScript transformation 'fragile' left the event unchanged: "
                    + "exception: TypeError: no bad events (line 1)"
            ]
        )
        #expect(Self.warningEventNames(harness.logger) == ["Bad"])
    }

    @Test func infiniteLoopTimesOutAndTheNextEventIsTransformed() async {
        let harness = await Self.failThenRecover(
            "if (payload.event_name === 'Bad') { while (true) {} } payload.n *= 10;",
            timeLimit: .milliseconds(20)
        )
        #expect(harness.spyA.deliveredEvents.map(\.payload) == [["n": 1], ["n": 20]])
        #expect(
            harness.logger.warnings == [
                "JavaScript transformation 'fragile' left the event unchanged: "
                    + "timeout: the script ran longer than 20 ms and was stopped"
            ]
        )
        #expect(Self.warningEventNames(harness.logger) == ["Bad"])
    }

    @Test func deletingThePayloadLeavesTheEventUnchanged() async {
        let harness = await Self.failThenRecover(
            "if (payload.event_name === 'Bad') { delete payload; } else { payload.n *= 10; }"
        )
        #expect(harness.spyA.deliveredEvents.map(\.payload) == [["n": 1], ["n": 20]])
        #expect(
            harness.logger.warnings == [
                "JavaScript transformation 'fragile' left the event unchanged: "
                    + "invalid payload: after the script `payload` is undefined; it must stay an object"
            ]
        )
        #expect(Self.warningEventNames(harness.logger) == ["Bad"])
    }

    @Test func missingCodeIsReportedAndEventsPass() async {
        var config = TransformationConfiguration()
        config.registerJavaScript()
        config.setTransformation(JavaScriptSettingsBuilder(id: "empty"))
        let harness = await TwoDestinations(config)
        await harness.send([("Visit", ["n": 1])])
        #expect(harness.spyA.deliveredEvents.map(\.payload) == [["n": 1]])
        #expect(
            harness.logger.warnings == [
                "JavaScript transformation 'empty' is skipped, events pass unchanged: "
                    + "invalid configuration: configuration.js_code must be a string with the script"
            ]
        )
    }

    @Test func prepareReportsASyntaxErrorUpFront() {
        let transformer = JavaScriptTransformer(logger: RecordingLogger())
        #expect(throws: JavaScriptFailure(.syntaxError, "SyntaxError: Unexpected token '}' (line 1)")) {
            try transformer.prepare(JavaScriptSettingsBuilder(id: "js", code: "if (").build())
        }
        #expect(throws: Never.self) {
            try transformer.prepare(JavaScriptSettingsBuilder(id: "ok", code: "payload.x = 1").build())
        }
    }

    @Test func changedCodeIsRecompiled() async {
        let transformer = JavaScriptTransformer(logger: RecordingLogger())
        let event = Event(appID: "APP", type: "E", clientUser: "u", receivedAt: Date(timeIntervalSince1970: 0))
        let first = JavaScriptSettingsBuilder(id: "js", code: "payload.v = 1").build()
        let second = JavaScriptSettingsBuilder(id: "js", code: "payload.v = 2").build()
        #expect(await transformer.apply(first, to: event, scope: .afterProcessors)?.payload == ["v": 1])
        #expect(await transformer.apply(second, to: event, scope: .afterProcessors)?.payload == ["v": 2])
    }

    @Test func consoleGoesToTheConfigurationLogger() async {
        let harness = await Self.client(
            JavaScriptSettingsBuilder(id: "chatty", code: "console.warn('price is', payload.price)")
        )
        await harness.send([("Purchase", ["price": 9.5])])
        #expect(harness.logger.warnings == ["JavaScript transformation 'chatty': price is 9.5"])
    }
}
