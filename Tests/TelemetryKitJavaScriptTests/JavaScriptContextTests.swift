import TelemetryKit
import TelemetryKitJavaScript
import TelemetryKitTesting
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The script context on its own: conversions, failures, `console`, `drop()`, the time limit.
struct JavaScriptContextTests {
    static func event(_ payload: [String: PayloadValue], name: String = "Checkout.completed") -> Event {
        Event(
            id: UUID(uuidString: "00000000-0000-0000-0000-000000000001") ?? UUID(),
            appID: "APP",
            type: name,
            clientUser: "user",
            receivedAt: Date(timeIntervalSince1970: 1_700_000_000),
            payload: payload
        )
    }

    /// The payload after running `code` against `payload`, or nil when the run did not transform.
    static func transform(_ code: String, _ payload: [String: PayloadValue]) throws -> [String: PayloadValue]? {
        let context = try JavaScriptContext(code: code, name: "test", logger: RecordingLogger())
        guard case .transformed(let event) = context.run(event(payload), destination: nil) else { return nil }
        return event.payload
    }

    @Test func renamesAKey() throws {
        let payload = try Self.transform(
            "payload.userEmail = payload.email; delete payload.email;",
            ["email": "a@example.com", "plan": "pro"]
        )
        #expect(payload == ["userEmail": "a@example.com", "plan": "pro"])
    }

    @Test func addsAComputedKey() throws {
        let payload = try Self.transform("payload.total = payload.price * payload.qty", ["price": 2.5, "qty": 3])
        #expect(payload == ["price": 2.5, "qty": 3, "total": 7.5])
    }

    @Test func computedIntegralNumberOfNewKeyIsAnInteger() throws {
        let payload = try Self.transform("payload.total = payload.price * payload.qty", ["price": 2.5, "qty": 4])
        #expect(payload?["total"] == .int(10))
    }

    @Test func typesRoundTripUnchanged() throws {
        let original: [String: PayloadValue] = [
            "int": .int(42), "negative": .int(-7), "big": .int(9_007_199_254_740_993), "double": .double(2.5),
            "wholeDouble": .double(3), "bool": .bool(true), "false": .bool(false), "string": "hello",
            "empty": "", "nonASCII": "Grüße, 東京 🚀", "nul": "a\u{0}b",
        ]
        let payload = try Self.transform("", original)
        #expect(payload == original)
    }

    @Test func typesAfterChanges() throws {
        let payload = try Self.transform(
            """
            payload.int += 1; payload.intToDouble /= 2; payload.double *= 2; payload.bool = !payload.bool;
            payload.text = payload.text + "!"; payload.numberFromString = Number(payload.numeric);
            payload.unicode = payload.unicode.toUpperCase();
            """,
            [
                "int": 41, "intToDouble": 5, "double": 1.5, "bool": false, "text": "Straße", "numeric": "12",
                "unicode": "çà",
            ]
        )
        #expect(
            payload == [
                "int": .int(42), "intToDouble": .double(2.5), "double": .double(3), "bool": true, "text": "Straße!",
                "numeric": "12", "numberFromString": .int(12), "unicode": "ÇÀ",
            ]
        )
    }

    @Test func lowercasesAValue() throws {
        let payload = try Self.transform("payload.city = payload.city.toLowerCase()", ["city": "MÜNCHEN"])
        #expect(payload == ["city": "münchen"])
    }

    @Test func nullOrUndefinedRemovesAKey() throws {
        let payload = try Self.transform("payload.a = null; payload.b = undefined;", ["a": 1, "b": "x", "c": true])
        #expect(payload == ["c": true])
    }

    @Test func replacingThePayloadObjectIsAllowed() throws {
        let payload = try Self.transform("payload = {only: 'this', event_name: payload.event_name}", ["a": 1])
        #expect(payload == ["only": "this"])
    }

    @Test func eventNameRenamesTheEvent() throws {
        let context = try JavaScriptContext(
            code: "if (payload.event_name === 'Old') { payload.event_name = 'New'; }",
            logger: RecordingLogger()
        )
        let outcome = context.run(Self.event(["a": 1], name: "Old"), destination: nil)
        guard case .transformed(let event) = outcome else {
            Issue.record("expected a transformed event, got \(outcome)")
            return
        }
        #expect(event.type == "New")
        #expect(event.payload == ["a": 1])
    }

    @Test func deletingEventNameKeepsTheName() throws {
        let context = try JavaScriptContext(code: "delete payload.event_name", logger: RecordingLogger())
        let outcome = context.run(Self.event(["a": 1], name: "Kept"), destination: nil)
        #expect(outcome == .transformed(Self.event(["a": 1], name: "Kept")))
    }

    @Test func scopeIsAfterProcessorsOrTheDestination() throws {
        let context = try JavaScriptContext(code: "payload.seen = scope", logger: RecordingLogger())
        #expect(context.run(Self.event([:]), destination: nil) == .transformed(Self.event(["seen": "afterprocessors"])))
        #expect(context.run(Self.event([:]), destination: "A") == .transformed(Self.event(["seen": "A"])))
    }

    @Test func dropDropsTheEvent() throws {
        let context = try JavaScriptContext(code: "if (payload.internal) { drop(); }", logger: RecordingLogger())
        #expect(context.run(Self.event(["internal": true]), destination: nil) == .dropped)
        #expect(
            context.run(Self.event(["internal": false]), destination: nil)
                == .transformed(Self.event(["internal": false]))
        )
    }

    @Test func consoleIsRoutedToTheLogger() throws {
        let logger = RecordingLogger()
        let context = try JavaScriptContext(
            code:
                "console.log('items', payload.n, [1, 2], {a: 'b'}); console.warn('careful'); console.error(new Error('bad'))",
            name: "audit",
            logger: logger
        )
        _ = context.run(Self.event(["n": 2], name: "Cart.viewed"), destination: nil)
        #expect(logger.entries.map(\.level) == [.info, .warning, .error])
        #expect(
            logger.entries.map(\.message) == [
                "JavaScript transformation 'audit': items 2 [1,2] {\"a\":\"b\"}",
                "JavaScript transformation 'audit': careful",
                "JavaScript transformation 'audit': Error: bad",
            ]
        )
        #expect(logger.entries.map(\.eventName) == ["Cart.viewed", "Cart.viewed", "Cart.viewed"])
    }

    @Test func syntaxErrorThrowsWithTheJavaScriptMessage() {
        #expect(throws: JavaScriptFailure(.syntaxError, "SyntaxError: Unexpected token ';' (line 1)")) {
            try JavaScriptContext(code: "payload.x = ;", logger: RecordingLogger())
        }
    }

    @Test func thrownExceptionFailsWithItsMessage() throws {
        let context = try JavaScriptContext(code: "\nthrow new Error('nope')", logger: RecordingLogger())
        #expect(
            context.run(Self.event(["a": 1]), destination: nil)
                == .failed(JavaScriptFailure(.exception, "Error: nope (line 2)"))
        )
    }

    @Test(arguments: [
        ("delete payload", "after the script `payload` is undefined; it must stay an object"),
        ("payload = 5", "after the script `payload` is a number; it must stay an object"),
        ("payload = [1]", "after the script `payload` is an array; it must stay an object"),
        ("payload.nested = {a: 1}", "payload.nested is an object; values must be strings, numbers or booleans"),
        ("payload.event_name = 3", "payload.event_name is a number; it must be a non-empty string"),
    ])
    func garbagePayloadFails(code: String, message: String) throws {
        let context = try JavaScriptContext(code: code, logger: RecordingLogger())
        #expect(
            context.run(Self.event(["a": 1]), destination: nil) == .failed(JavaScriptFailure(.invalidPayload, message))
        )
    }

    @Test func infiniteLoopTimesOutAndTheContextStaysUsable() throws {
        let context = try JavaScriptContext(
            code: "if (payload.loop) { while (true) {} } payload.after = 1;",
            timeLimit: .milliseconds(20),
            logger: RecordingLogger()
        )
        let timeout = JavaScriptFailure(.timeout, "the script ran longer than 20 ms and was stopped")
        // Several times: JavaScriptCore's default traps stop only the first runaway script.
        for _ in 0..<3 {
            #expect(context.run(Self.event(["loop": true]), destination: nil) == .failed(timeout))
            #expect(
                context.run(Self.event(["loop": false]), destination: nil)
                    == .transformed(Self.event(["loop": false, "after": 1]))
            )
        }
    }

    @Test func globalsPersistBetweenRuns() throws {
        let context = try JavaScriptContext(
            code: "globalThis.count = (globalThis.count || 0) + 1; payload.count = count;",
            logger: RecordingLogger()
        )
        _ = context.run(Self.event([:]), destination: nil)
        #expect(context.run(Self.event([:]), destination: nil) == .transformed(Self.event(["count": 2])))
    }
}

extension JavaScriptContextTests {
    @Test func concurrentRunsSeeTheirOwnPayload() async throws {
        let context = try JavaScriptContext(
            code: "var n = payload.n; for (var i = 0; i < 200; i++) {} payload.twice = n * 2; payload.scope = scope;",
            logger: RecordingLogger()
        )
        let results = await withTaskGroup(of: (Int, JavaScriptContext.Outcome).self) { group in
            for n in 0..<200 {
                group.addTask { (n, context.run(Self.event(["n": .int(Int64(n))]), destination: "D\(n)")) }
            }
            var results: [Int: JavaScriptContext.Outcome] = [:]
            for await (n, outcome) in group { results[n] = outcome }
            return results
        }
        #expect(results.count == 200)
        for (n, outcome) in results {
            let expected: [String: PayloadValue] = [
                "n": .int(Int64(n)), "twice": .int(Int64(2 * n)), "scope": .string("D\(n)"),
            ]
            #expect(outcome == .transformed(Self.event(expected)))
        }
    }

    @Test func aScriptThatFreezesPayloadCannotLeakItIntoTheNextEvent() throws {
        let context = try JavaScriptContext(
            code:
                "Object.defineProperty(globalThis, 'payload', {value: payload, writable: false, configurable: false});",
            logger: RecordingLogger()
        )
        #expect(context.run(Self.event(["n": 1]), destination: nil) == .transformed(Self.event(["n": 1])))
        #expect(
            context.run(Self.event(["n": 2]), destination: nil)
                == .failed(
                    JavaScriptFailure(.invalidPayload, "`payload` can no longer be set: an earlier run redefined it")
                )
        )
    }
}

extension JavaScriptContextTests {
    @Test func deletedAndSetAgainKeepsTheKey() throws {
        let payload = try Self.transform(
            "delete payload.a; delete payload.b; payload.a = 'again'; payload.z = payload.c;",
            ["a": 1, "b": 2, "c": "see"]
        )
        #expect(payload == ["a": "again", "c": "see", "z": "see"])
    }

    @Test func sameKeysInAnotherOrderKeepTheirTypes() throws {
        let payload = try Self.transform(
            "payload = {c: payload.c, b: payload.b, a: payload.a, event_name: payload.event_name}",
            ["a": .double(1), "b": .int(2), "c": "x"]
        )
        #expect(payload == ["a": .double(1), "b": .int(2), "c": "x"])
    }

    @Test func valueReplacedByAnEqualValueKeepsItsType() throws {
        let payload = try Self.transform(
            "payload.d = 2; payload.i = 2; payload.s = 'ab'.toUpperCase().toLowerCase(); payload.b = !!1;",
            ["d": .double(2), "i": .int(2), "s": "ab", "b": true]
        )
        #expect(payload == ["d": .double(2), "i": .int(2), "s": "ab", "b": true])
    }

    @Test func loneSurrogateBecomesAReplacementCharacter() throws {
        let payload = try Self.transform("payload.s = 'a\\uD800b'", [:])
        #expect(payload == ["s": "a\u{FFFD}b"])
    }
}
