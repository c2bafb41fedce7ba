#if Tools
import ArgumentParser
import Foundation
import TelemetryKit
import TelemetryKitClient
import TelemetryKitTrackingPlan
import TelemetryKitCollector

/// `telemetrykit send NAME …`: queue one event durably, then try to deliver the queue.
struct SendCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "send",
        abstract: "Queue one event and try to deliver everything queued.",
        discussion: """
            The event is written to the queue directory before anything is sent, so it survives \
            an unreachable endpoint; a later `send` or `flush` delivers it. Endpoint options are \
            remembered for later runs. The event is sent as given (name, parameters, floatValue), \
            without the default processors' parameters.
            """
    )

    @Argument(help: "The event name, e.g. Screen.shown.")
    var name: String

    @Option(
        name: [.customShort("p"), .long],
        help: ArgumentHelp(
            "A parameter as key=value; repeat for more. true/false, integers and numbers keep their type.",
            valueName: "key=value"
        )
    )
    var parameter: [String] = []

    @Option(name: .customLong("float"), help: ArgumentHelp("The event's floatValue.", valueName: "x"))
    var floatValue: Double?

    @OptionGroup var endpointOptions: EndpointOptions
    @OptionGroup var directoryOptions: DirectoryOptions

    func validate() throws {
        guard !name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw ValidationError("The event name must not be blank.")
        }
        if let floatValue, !floatValue.isFinite { throw ValidationError("--float must be a finite number.") }
        _ = try Self.parse(parameter)
    }

    /// `key=value` pairs as typed parameters.
    static func parse(_ pairs: [String]) throws -> EventParameters {
        var parameters = EventParameters()
        for pair in pairs {
            guard let separator = pair.firstIndex(of: "="), separator != pair.startIndex else {
                throw ValidationError("--parameter '\(pair)' is not key=value.")
            }
            let key = String(pair[..<separator])
            let value = String(pair[pair.index(after: separator)...])
            if value == "true" || value == "false" {
                parameters.set(key, value == "true")
            } else if let integer = Int64(value) {
                parameters.set(key, integer)
            } else if let number = Double(value), number.isFinite {
                parameters.set(key, number)
            } else {
                parameters.set(key, value)
            }
        }
        return parameters
    }

    func run() async throws {
        let workspace = directoryOptions.workspace
        try workspace.prepare()
        let settings = endpointOptions.settings(saved: workspace.loadSettings())
        let queue = try QueueClient(workspace: workspace, settings: settings, timeout: endpointOptions.timeout)
        try workspace.remember(settings)
        await queue.client.start()
        await queue.client.send(EventInput(name, parameters: try Self.parse(parameter), floatValue: floatValue))
        say("Queued \(name) for \(queue.endpoint.absoluteString)")
        let result = await queue.flush()
        if result.remaining == 0 {
            say("Delivered \(result.delivered) event(s).")
        } else {
            let reason = queue.connection.lastFailure.map { " (\($0))" } ?? ""
            say("Not delivered\(reason): \(result.remaining) event(s) stay queued in \(workspace.directory.path).")
            say("Run `telemetrykit flush` when the endpoint is reachable.")
        }
        if result.rejected > 0 {
            // Dropped for good: the event never arrives, so the command did not do what was asked.
            say("The endpoint rejected \(result.rejected) event(s); they are dropped (`telemetrykit status` says why).")
            throw ExitCode(1)
        }
    }
}

/// `telemetrykit flush`: deliver everything queued.
struct FlushCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "flush",
        abstract: "Deliver every queued event; exits 1 when some stay queued."
    )

    @OptionGroup var endpointOptions: EndpointOptions
    @OptionGroup var directoryOptions: DirectoryOptions

    func run() async throws {
        let workspace = directoryOptions.workspace
        try workspace.prepare()
        let settings = endpointOptions.settings(saved: workspace.loadSettings())
        let queue = try QueueClient(workspace: workspace, settings: settings, timeout: endpointOptions.timeout)
        try workspace.remember(settings)
        await queue.client.start()
        let result = await queue.flush()
        say("Delivered \(result.delivered) event(s) to \(queue.endpoint.absoluteString).")
        if result.rejected > 0 {
            say("The endpoint rejected \(result.rejected) event(s); they are dropped (`telemetrykit status` says why).")
        }
        if result.remaining > 0 {
            let reason = queue.connection.lastFailure.map { " (\($0))" } ?? ""
            say("\(result.remaining) event(s) stay queued\(reason).")
        }
        if result.remaining > 0 || result.rejected > 0 { throw ExitCode(1) }
    }
}

/// `telemetrykit status`: what is queued and how delivery went.
struct StatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show queued events per destination, the last success and the current backoff."
    )

    @OptionGroup var directoryOptions: DirectoryOptions

    func run() async throws {
        let workspace = directoryOptions.workspace
        try workspace.prepare()
        let settings = workspace.loadSettings() ?? .defaults
        let state = workspace.loadState()
        let cache = try workspace.openQueue(logger: StandardErrorLogger(minimumLevel: .warning))
        // The count is kept in memory and reads 0 when the queue could not be opened (a full
        // disk, a damaged file): reading the queue is what tells a real 0 from a failure.
        do {
            _ = try await cache.peek(limit: 1)
        } catch {
            throw CommandFailure(
                "Cannot read the queue in \(workspace.cacheDirectory.path): \(error). "
                    + "How many events are queued is unknown; free disk space or check the directory, then retry."
            )
        }
        let queued = await cache.count()
        let backoff = BackoffPolicy()
        say("Directory:    \(workspace.directory.path)")
        say("Destination:  \(QueueClient.destinationID) → \(settings.endpoint) (namespace \(settings.namespace))")
        say("Queued:       \(queued) event(s)")
        say("Last success: \(state.lastSuccess.map(Self.format) ?? "never")")
        if state.consecutiveFailures > 0 {
            let delay = backoff.baseDelay(afterFailures: state.consecutiveFailures)
            let next = state.lastAttempt.map { Self.format($0.addingTimeInterval(delay)) } ?? "now"
            say("Backoff:      \(Int(delay)) s after \(state.consecutiveFailures) failed attempt(s); next at \(next)")
        } else {
            say("Backoff:      none")
        }
        // A rejection sets no backoff (the endpoint answered) but is an error all the same.
        if let error = state.lastError { say("Last error:   \(error)") }
    }

    private static func format(_ date: Date) -> String {
        ISO8601.string(from: date)
    }
}

/// `telemetrykit collect`: run the ingest collector in the foreground.
struct CollectCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "collect",
        abstract: "Run a local ingest collector and print the events it receives.",
        discussion: """
            Prints one line per received event and per rejected request, with the reason the \
            collector gave. Ctrl-C stops it and prints a summary: events received, duplicates, \
            rejected requests, and the count per event type.
            """
    )

    @Option(help: ArgumentHelp("The port to listen on (0 picks a free one).", valueName: "n"))
    var port: Int = 8080

    @Option(help: ArgumentHelp("Stop after this many seconds (default: run until interrupted).", valueName: "seconds"))
    var duration: Double?

    @Option(
        help: ArgumentHelp(
            "How many of the latest events to keep for the page and /events; all are counted.",
            valueName: "n"
        )
    )
    var keep: Int = 5_000

    @Option(
        help: ArgumentHelp(
            "A tracking plan (TrackingPlan.jsonData()) to check received events against.",
            discussion: "Violating events are accepted, and marked on the page, in /events and here.",
            valueName: "plan.json"
        )
    )
    var plan: String?

    func validate() throws {
        guard (0...65_535).contains(port) else { throw ValidationError("--port must be between 0 and 65535.") }
        if let duration, !(duration > 0) { throw ValidationError("--duration must be positive.") }
        guard keep >= 1 else { throw ValidationError("--keep must be at least 1.") }
    }

    func run() async throws {
        let trackingPlan = try plan.map(Self.readPlan)
        // Stop signals are taken before the collector starts, so that a Ctrl-C at any moment
        // ends in the summary rather than in the default action, which kills the process.
        let interruption = Interruption()
        let collector = try await startCollector(
            Collector.Configuration(port: port, retention: .latest(events: keep), trackingPlan: trackingPlan)
        )
        say("Collecting on \(collector.baseURL)  (events: \(collector.baseURL)/events, page: \(collector.baseURL)/)")
        if let trackingPlan, let plan {
            say("Checking against \(plan): \(trackingPlan.events.count) event(s)")
        }
        say("Send with: telemetrykit send Hello.world --endpoint \(collector.baseURL)")
        collector.observe { events in
            for event in events {
                say(EventLine.format(event))
                for violation in collector.planViolations(of: event.id) {
                    say("  ✗ \(violation)")
                }
            }
        }
        collector.observeRejections { rejection in
            say("✗ Rejected with \(rejection.status) (\(rejection.path)): \(rejection.reason)")
        }
        await interruption.wait(seconds: duration)
        await collector.shutdown()
        say(Self.summary(of: collector))
        if trackingPlan != nil { say("\(collector.violatingEventCount) event(s) broke the tracking plan.") }
    }

    /// What the collector saw: totals, then the count per event type, most frequent first.
    static func summary(of collector: Collector) -> String {
        var lines = [
            "Received \(collector.eventCount) event(s), \(collector.duplicateCount) duplicate(s), "
                + "\(collector.rejectedCount) rejected request(s) of \(collector.requestCount)."
        ]
        let counts = collector.countsByType.sorted { ($1.value, $0.key) < ($0.value, $1.key) }
        let width = counts.first.map { String($0.value).count } ?? 0
        for (type, count) in counts {
            let number = String(count)
            lines.append("  " + String(repeating: " ", count: width - number.count) + number + " × " + type)
        }
        return lines.joined(separator: "\n")
    }

    /// The plan at `path`, or a validation error that names the file and what is wrong.
    static func readPlan(_ path: String) throws -> TrackingPlan {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw ValidationError("--plan: cannot read \(path): \(error.localizedDescription)")
        }
        do {
            return try TrackingPlan(jsonData: data)
        } catch {
            throw ValidationError("--plan: \(path) is not a tracking plan: \(error)")
        }
    }
}
#endif
