#if Tools
import ArgumentParser
import Foundation
import TelemetryKit
import TelemetryKitSupport
import TelemetryKitTrackingPlan
import TelemetryKitCollector
import TelemetryKitDefaults
import TelemetryKitHTTP
import TelemetryKitInMemoryStorage
import TelemetryKitTransformations

/// `telemetrykit demo`: the whole SDK against a real local collector, in one command.
struct DemoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "demo",
        abstract: "Send events through the default pipeline to an in-process collector and summarise.",
        discussion: """
            Starts a collector on 127.0.0.1, builds a client with the default processors, a \
            transformation loaded from JSON settings, a durable queue in a temporary directory \
            and the HTTP transmitter (gzip), sends the events, flushes, and prints what arrived.
            """
    )

    static let eventName = "Demo.screenShown"

    /// The demo's transformation, as an app would ship it in JSON settings: events shown on
    /// the checkout screen get `funnel_step = "checkout"` before they are queued.
    static let transformationSettings = """
        [{"transformation_id": "tag-checkout", "transformer_id": "SetDataValues", "scope": "afterprocessors",
          "order": 10,
          "conditions": {"variable": {"key": "screen"}, "operator": "equals", "filter": {"value": "checkout"}},
          "configuration": {"operations": [{"constant": "checkout", "to": {"key": "funnel_step"}}]}}]
        """

    @Option(help: ArgumentHelp("How many events to send.", valueName: "n"))
    var count: Int = 1000

    func validate() throws {
        guard (1...1_000_000).contains(count) else { throw ValidationError("--count must be between 1 and 1000000.") }
    }

    func run() async throws {
        let collector = try await startCollector(Collector.Configuration(port: 0))
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("telemetrykit-demo-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let logger = StandardErrorLogger(minimumLevel: .warning)

        let transmitter = try HTTPEventTransmitter(
            configuration: .init(apiBaseURL: collector.baseURL, namespace: "demo", compression: .gzip),
            logger: logger
        )
        let destinationID = "collector"
        let storage = InMemoryProcessorStorage()
        var transformations = TransformationConfiguration()
        try transformations.load(json: Data(Self.transformationSettings.utf8))
        let client = TelemetryClient(
            configuration: .init(appID: "DEMO-APP-ID"),
            processors: Telemetry.defaultProcessors(),
            destinations: [
                Destination(
                    id: destinationID,
                    transmitter: transmitter,
                    cache: try makeEventCache(directory: directory, logger: logger),
                    policy: DeliveryPolicy(flushInterval: 1, sendThreshold: 100)
                )
            ],
            transformations: transformations.transformations(storage: storage, logger: logger),
            storage: storage,
            logger: logger
        )
        say("TelemetryKit demo: collector on \(collector.baseURL), queue in \(directory.path)")
        await client.start()
        client.setUserIdentifier("demo-user@example.com")

        let screens = ["home", "settings", "profile", "checkout", "search"]
        let progress = ProgressBar(total: count, label: "Sending")
        let clock = ContinuousClock()
        let started = clock.now
        // Fire-and-forget like an app, in steps of 50 so the bar shows events that reached the
        // durable queue (the client commits each step to SQLite in one transaction).
        for index in 0..<count {
            client.event(
                Self.eventName,
                parameters: [
                    "screen": screens[index % screens.count],
                    "index": index,
                    "isReturningVisit": index % 3 == 0,
                ],
                floatValue: Double(index % 100) / 10
            )
            if (index + 1) % 50 == 0 || index + 1 == count {
                await client.waitUntilProcessed()
                progress.update(index + 1)
            }
        }
        let queued = clock.now
        var rounds = 0
        while case .incomplete = await client.flush(), rounds < 20 {
            rounds += 1
        }
        let delivered = clock.now
        progress.finish()
        await client.shutdown()

        let stats = await client.stats.destinations[destinationID] ?? DestinationStats()
        await collector.shutdown()
        printSummary(
            collector: collector,
            stats: stats,
            queueSeconds: Self.seconds(queued - started),
            totalSeconds: Self.seconds(delivered - started)
        )
        let demoEvents = collector.events.filter { $0.type == Self.eventName }.count
        if demoEvents != count {
            say("Error: the collector received \(demoEvents) of the \(count) demo events.")
            throw ExitCode(1)
        }
    }

    private func printSummary(collector: Collector, stats: DestinationStats, queueSeconds: Double, totalSeconds: Double)
    {
        let requests = collector.requests
        let received = collector.events
        let wireBytes = requests.reduce(0) { $0 + $1.rawBodyByteCount }
        let jsonBytes = requests.reduce(0) { $0 + $1.body.count }
        let sdkEvents = received.filter { $0.type != Self.eventName }.map(\.type)
        say()
        say("Summary")
        say("  events received by the collector: \(received.count), each checked against TelemetryDeck's wire format")
        say("    \(received.count - sdkEvents.count) × \(Self.eventName)")
        for type in Set(sdkEvents).sorted() {
            say("    \(sdkEvents.filter { $0 == type }.count) × \(type) (sent by the SDK's processors)")
        }
        let tagged = received.filter { $0.payload["funnel_step"] == "checkout" }.count
        say("  tagged by the JSON-configured transformation 'tag-checkout' (funnel_step = checkout): \(tagged)")
        say("  delivered: \(stats.delivered)   rejected: \(stats.rejected)   retried: \(stats.retried)")
        say(
            "  lost: \(stats.evicted) evicted, \(stats.overflowDropped) dropped from memory   "
                + "cache failures: \(stats.cacheFailures)   still queued: \(stats.queued), held in memory: \(stats.heldInMemory)"
        )
        let perEvent = received.isEmpty ? 0 : wireBytes / received.count
        say(
            "  requests: \(requests.count), \(wireBytes) bytes gzip (\(perEvent) per event) from \(jsonBytes) bytes JSON"
        )
        #if DEBUG
        // A debug build runs several times slower than what an app ships; its figure beside the
        // README's release measurements would mislead.
        say(
            "  time per event: not shown for a debug build; run `swift run -c release --traits Tools telemetrykit demo`"
        )
        #else
        say(
            "  time per event: \(Self.microseconds(queueSeconds / Double(count))) µs into the durable queue, "
                + "\(Self.microseconds(totalSeconds / Double(count))) µs including delivery (release build)"
        )
        #endif
        if let (example, parameters) = Self.firstWireEvent(named: Self.eventName, in: requests) {
            say()
            say("Example event (as received on the wire, re-indented; \(parameters) parameters):")
            say(example)
        }
    }

    /// The first event named `name` in the request bodies, as sent (pretty-printed JSON), and
    /// its parameter count.
    private static func firstWireEvent(named name: String, in requests: [IngestRequest]) -> (String, Int)? {
        for request in requests {
            guard let events = try? JSONSerialization.jsonObject(with: request.body) as? [[String: Any]],
                let event = events.first(where: { $0["type"] as? String == name }),
                let data = try? JSONSerialization.data(
                    withJSONObject: event,
                    options: [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
                )
            else { continue }
            return (String(decoding: data, as: UTF8.self), (event["payload"] as? [String: Any])?.count ?? 0)
        }
        return nil
    }

    private static func seconds(_ duration: Duration) -> Double {
        let parts = duration.components
        return Double(parts.seconds) + Double(parts.attoseconds) / 1e18
    }

    private static func microseconds(_ seconds: Double) -> String {
        String(Int((seconds * 1_000_000).rounded()))
    }
}

/// Starts a collector, saying what to do when the port is taken.
func startCollector(_ configuration: Collector.Configuration) async throws(CommandFailure) -> Collector {
    do {
        return try await Collector.start(configuration)
    } catch let error as CollectorError where error.reason == .addressInUse {
        throw CommandFailure(
            "Port \(configuration.port) on \(configuration.host) is already in use by another process. "
                + "Stop that process, or pass --port with another number (--port 0 picks a free one)."
        )
    } catch {
        throw CommandFailure("The collector could not start: \(error)")
    }
}

/// A one-line progress bar on a terminal; a few plain lines otherwise.
final class ProgressBar: Sendable {
    let total: Int
    let label: String
    private let isTerminal: Bool
    private let lastShown = Locked(-1)

    init(total: Int, label: String) {
        self.total = max(1, total)
        self.label = label
        self.isTerminal = isatty(STDOUT_FILENO) != 0
    }

    func update(_ done: Int) {
        let width = 30
        if isTerminal {
            let step = done * 100 / total
            guard
                lastShown.withLock({ shown in
                    defer { shown = step }
                    return shown != step
                })
            else { return }
            let filled = done * width / total
            let bar = String(repeating: "█", count: filled) + String(repeating: "░", count: width - filled)
            write("\r\(label) [\(bar)] \(done)/\(total)")
        } else {
            let quarter = done * 4 / total
            guard
                lastShown.withLock({ shown in
                    defer { shown = quarter }
                    return shown != quarter
                }), quarter > 0
            else { return }
            say("\(label): \(done)/\(total)")
        }
    }

    func finish() {
        if isTerminal { say() }
    }
}
#endif
