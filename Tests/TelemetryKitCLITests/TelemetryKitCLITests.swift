#if Tools
import Foundation
import Testing
import TelemetryKit
import TelemetryKitTrackingPlan
import TelemetryKitTypedEvents
import TelemetryKitCollector
import TelemetryKitHTTPTestSupport
import TelemetryKitTesting

/// Runs the built `telemetrykit` executable as a subprocess.
@Suite struct TelemetryKitCLITests {
    private func run(_ arguments: [String]) async throws -> CLI.Run {
        try await CLI.run(arguments)
    }

    @Test func demoSendsAThousandEventsAndPrintsTheSummary() async throws {
        let result = try await run(["demo"])
        #expect(result.status == 0, "stderr: \(result.errors)")
        #expect(result.output.contains("1000 × Demo.screenShown"))
        #expect(result.output.contains("× TelemetryDeck.Session.started (sent by the SDK's processors)"))
        #expect(result.output.contains("events received by the collector: 1"))
        #expect(result.output.contains(", each checked against TelemetryDeck's wire format"))
        // One in five screens is "checkout": the JSON-configured transformation tags those.
        #expect(result.output.contains("'tag-checkout' (funnel_step = checkout): 200\n"))
        #expect(result.output.contains("rejected: 0   retried: 0"))
        // Nothing lost, nothing left behind: the loss counters are shown, and are zero.
        #expect(
            result.output.contains(
                "lost: 0 evicted, 0 dropped from memory   cache failures: 0   still queued: 0, held in memory: 0"
            )
        )
        #expect(result.output.contains("Sending: 1000/1000"))
        // The test runs a debug build: no timing beside the README's release figures.
        #expect(
            result.output.contains(
                "time per event: not shown for a debug build; "
                    + "run `swift run -c release --traits Tools telemetrykit demo`"
            )
        )
        #expect(!result.output.contains(" µs "))
        #expect(result.output.contains("Example event (as received on the wire"))
        #expect(result.output.contains(#""type" : "Demo.screenShown""#))
        // The TelemetryDeck form: the test mode as a string, whole seconds, no event id.
        #expect(
            result.output.contains(#""isTestMode" : "true""#) || result.output.contains(#""isTestMode" : "false""#)
        )
        #expect(result.output.contains(#"+0000","#))
        #expect(!result.output.contains(#""id" : "#))
        #expect(result.output.contains(#""appID" : "DEMO-APP-ID""#))
        // The example shows the default processors' parameters too.
        #expect(result.output.contains(#""TelemetryDeck.Device.operatingSystem" : "#))
        #expect(result.output.contains(#""screen" : "home""#))
    }

    @Test func sendKeepsTheEventWhileTheEndpointIsDownAndFlushDeliversItLater() async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        // A port held without listening: the endpoint is down, and no other test's collector
        // can take the port meanwhile.
        let reserved = try ReservedPort()
        let endpoint = reserved.baseURL

        let send = try await run([
            "send", "Checkout.completed", "--parameter", "items=3", "-p", "coupon=SPRING", "-p", "express=true",
            "--float", "19.99", "--endpoint", endpoint, "--app-id", "CLI-TEST", "--namespace", "cli",
            "--directory", home.url.path,
        ])
        #expect(send.status == 0, "stderr: \(send.errors)")
        #expect(send.output.contains("1 event(s) stay queued"))

        let down = try await run(["status", "--directory", home.url.path])
        #expect(down.status == 0)
        #expect(down.output.contains("Queued:       1 event(s)"))
        #expect(down.output.contains("Last success: never"))
        #expect(down.output.contains("Backoff:      10 s after 1 failed attempt(s)"))
        #expect(down.output.contains("Last error:   connection refused"))

        reserved.release()
        let collector = try await Collector.start(Collector.Configuration(port: reserved.port))
        let flush = try await run(["flush", "--directory", home.url.path])
        await collector.shutdown()
        #expect(flush.status == 0, "stderr: \(flush.errors)")
        #expect(flush.output.contains("Delivered 1 event(s) to \(endpoint)/v2/namespace/cli/."))
        let event = try #require(collector.events.first)
        #expect(collector.eventCount == 1)
        #expect(event.type == "Checkout.completed")
        #expect(event.appID == "CLI-TEST")
        #expect(event.payload == ["items": .int(3), "coupon": .string("SPRING"), "express": .bool(true)])
        #expect(event.floatValue == 19.99)
        #expect(collector.requests.first?.path == "/v2/namespace/cli/")

        let up = try await run(["status", "--directory", home.url.path])
        #expect(up.output.contains("Queued:       0 event(s)"))
        #expect(up.output.contains("Backoff:      none"))
        #expect(!up.output.contains("Last success: never"))
    }

    /// A proxy that answers 413 to everything: the event is dropped, and neither the exit code
    /// nor `status` calls that a success.
    @Test func aRejectedEventIsAFailureNotASuccess() async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let collector = try await Collector.start()
        collector.script(Array(repeating: Fault.status(413), count: 4))
        let send = try await run([
            "send", "Too.large", "--endpoint", collector.baseURL, "--app-id", "CLI-TEST", "--namespace", "cli",
            "--directory", home.url.path,
        ])
        await collector.shutdown()
        #expect(send.status == 1, "stderr: \(send.errors)")
        #expect(send.output.contains("The endpoint rejected 1 event(s); they are dropped"))
        let status = try await run(["status", "--directory", home.url.path])
        #expect(status.output.contains("Queued:       0 event(s)"))
        #expect(status.output.contains("Last success: never"))
        #expect(status.output.contains("Last error:   1 event(s) rejected by the endpoint: HTTP 413"))
    }

    @Test func flushFailsWhileEventsStayQueued() async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        _ = try await run(["send", "Ping", "--endpoint", nothingListensBaseURL, "--directory", home.url.path])
        let flush = try await run(["flush", "--directory", home.url.path])
        #expect(flush.status == 1)
        #expect(flush.output.contains("1 event(s) stay queued (connection refused)."))
    }

    @Test(arguments: [
        ["send"],
        ["frobnicate"],
        ["send", "Event", "--parameter", "no-equals-sign"],
        ["send", "Event", "--float", "abc"],
        ["send", "Event", "--endpoint", "ftp://example.com"],
        ["send", "Event", "--endpoint", "http://example.com"],
        ["send", "Event", "--endpoint", "https://exa mple.com"],
        ["send", "   "],
        ["send", "\n"],
        ["send", "Event", "--app-id", " \n "],
        ["collect", "--port", "70000"],
        ["demo", "--count", "0"],
        ["status", "--unknown-flag"],
    ])
    func badArgumentsPrintUsageAndFail(arguments: [String]) async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        // `send` gets a scratch directory so that a bug could never touch the user's queue.
        let scratch = arguments.first == "send" ? ["--directory", home.url.path] : []
        let result = try await run(arguments + scratch)
        #expect(result.status != 0)
        #expect(result.errors.contains("Error: "))
        #expect(result.errors.contains("Usage: telemetrykit"))
        #expect(!result.errors.contains("Fatal error"))
        #expect(!result.errors.contains("Stack dump"))
    }

    @Test func collectRunsForTheGivenDuration() async throws {
        let result = try await run(["collect", "--port", "0", "--duration", "0.5"])
        #expect(result.status == 0, "stderr: \(result.errors)")
        #expect(result.output.contains("Collecting on http://127.0.0.1:"))
        #expect(result.output.contains("Received 0 event(s), 0 duplicate(s), 0 rejected request(s) of 0."))
    }

    @Test func collectChecksAgainstATrackingPlanFile() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let planURL = scratch.file("plan.json")
        let plan = TrackingPlan(events: [
            EventSchema(name: "Checkout.completed"), EventSchema(name: "Checkout.started"),
        ])
        try plan.jsonData().write(to: planURL)

        let result = try await run(["collect", "--port", "0", "--duration", "0.5", "--plan", planURL.path])

        #expect(result.status == 0, "stderr: \(result.errors)")
        #expect(result.output.contains("Checking against \(planURL.path): 2 event(s)"))
        #expect(result.output.contains("0 event(s) broke the tracking plan."))
    }

    @Test func collectRefusesAPlanItCannotReadOrParse() async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let damaged = scratch.file("damaged.json")
        try Data(#"{"events": [{"name": 3}]}"#.utf8).write(to: damaged)

        let missing = try await run([
            "collect", "--port", "0", "--duration", "0.5", "--plan", scratch.file("none.json").path,
        ])
        let unreadable = try await run(["collect", "--port", "0", "--duration", "0.5", "--plan", damaged.path])

        #expect(missing.status != 0)
        #expect(missing.errors.contains("--plan: cannot read \(scratch.file("none.json").path)"))
        #expect(unreadable.status != 0)
        #expect(unreadable.errors.contains("--plan: \(damaged.path) is not a tracking plan"))
        #expect(!unreadable.errors.contains("Fatal error"))
    }
}
#endif
