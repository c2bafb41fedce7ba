#if Tools
import ArgumentParser
import Foundation
import TelemetryKit
import TelemetryKitClient
import TelemetryKitHTTP
import TelemetryKitInMemoryStorage
import TelemetryKitSupport

/// `telemetrykit`: try the SDK end to end, send events by hand, run a local collector.
@main
struct TelemetryKitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "telemetrykit",
        abstract: "Try TelemetryKit end to end, send events by hand, or run a local ingest collector.",
        subcommands: [DemoCommand.self, SendCommand.self, FlushCommand.self, StatusCommand.self, CollectCommand.self]
    )
}

/// The queue directory shared by `send`, `flush` and `status`.
struct DirectoryOptions: ParsableArguments {
    @Option(
        name: .customLong("directory"),
        help: ArgumentHelp(
            "Where unsent events and settings are kept.",
            discussion:
                "Default: $TELEMETRYKIT_HOME, else $XDG_DATA_HOME/telemetrykit, else ~/.local/share/telemetrykit.",
            valueName: "path"
        )
    )
    var path: String?

    var workspace: Workspace { Workspace(path: path) }
}

/// Endpoint options; omitted ones come from the last run (then the defaults).
struct EndpointOptions: ParsableArguments {
    @Option(help: ArgumentHelp("The ingest API base URL (default http://127.0.0.1:8080).", valueName: "url"))
    var endpoint: String?

    @Option(name: .customLong("app-id"), help: ArgumentHelp("The app ID events are sent for.", valueName: "id"))
    var appID: String?

    @Option(help: ArgumentHelp("The namespace of the ingest path.", valueName: "ns"))
    var namespace: String?

    @Flag(help: "Allow plain http:// to a host that is not loopback.")
    var allowInsecureHTTP = false

    @Option(help: ArgumentHelp("Seconds one request may take.", valueName: "seconds"))
    var timeout: Double = 10

    func validate() throws {
        if let appID, appID.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw ValidationError("--app-id must not be blank.")
        }
        guard timeout > 0, timeout.isFinite else { throw ValidationError("--timeout must be a positive number.") }
        if let endpoint {
            // Checked here, before anything runs: a mistyped endpoint must neither be sent to
            // (`notaurl` would become https://notaurl/) nor saved for later runs.
            guard let url = URL(string: endpoint), let scheme = url.scheme?.lowercased(),
                scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty
            else {
                throw ValidationError(
                    "--endpoint '\(endpoint)' is not an http:// or https:// URL with a host; "
                        + "give one like https://nom.telemetrydeck.com or http://127.0.0.1:8080."
                )
            }
        }
    }

    /// These options over the saved settings over the defaults.
    func settings(saved: Workspace.Settings?) -> Workspace.Settings {
        let base = saved ?? .defaults
        return Workspace.Settings(
            endpoint: endpoint ?? base.endpoint,
            appID: appID ?? base.appID,
            namespace: namespace ?? base.namespace,
            allowsInsecureHTTP: allowInsecureHTTP || base.allowsInsecureHTTP
        )
    }
}

/// A client over the workspace queue with one HTTP destination, for `send` and `flush`.
struct QueueClient {
    static let destinationID = "http"

    let client: TelemetryClient
    let connection: RecordingConnection
    let workspace: Workspace
    let settings: Workspace.Settings
    let endpoint: URL
    private let reports: Locked<[DeliveryReport]>

    init(workspace: Workspace, settings: Workspace.Settings, timeout: Double) throws {
        let connection = RecordingConnection()
        let transmitter: HTTPEventTransmitter
        do {
            transmitter = try HTTPEventTransmitter(
                configuration: .init(
                    apiBaseURL: settings.endpoint,
                    namespace: settings.namespace,
                    timeout: timeout,
                    allowsInsecureHTTP: settings.allowsInsecureHTTP
                ),
                connection: connection,
                logger: SilentLogger()
            )
        } catch .insecureHTTP(let host) {
            throw ValidationError(
                "Refusing plain http:// to '\(host)': events would travel unencrypted. "
                    + "Use https://, or pass --allow-insecure-http if this is intended."
            )
        } catch {
            throw ValidationError("\(error)")
        }
        let logger = StandardErrorLogger(minimumLevel: .warning)
        let cache = try workspace.openQueue(logger: logger)
        let reports = Locked([DeliveryReport]())
        self.client = TelemetryClient(
            configuration: .init(appID: settings.appID),
            destinations: [
                Destination(
                    id: Self.destinationID,
                    transmitter: transmitter,
                    cache: cache,
                    // Delivery happens on explicit flushes only: the process is short-lived.
                    policy: DeliveryPolicy(flushInterval: 86_400)
                )
            ],
            storage: InMemoryProcessorStorage(),
            logger: SilentLogger(),
            observer: { report in reports.withLock { $0.append(report) } }
        )
        self.connection = connection
        self.workspace = workspace
        self.settings = settings
        self.endpoint = transmitter.endpoint
        self.reports = reports
    }

    /// Delivers the queue once and records the outcome for `status`.
    func flush() async -> (delivered: Int, rejected: Int, remaining: Int) {
        let before = await client.stats.destinations[Self.destinationID] ?? DestinationStats()
        let result = await client.flush()
        let after = await client.stats.destinations[Self.destinationID] ?? DestinationStats()
        let remaining: Int
        switch result {
        case .complete: remaining = 0
        case .incomplete(let count): remaining = count
        case .rejected(_, let count): remaining = count
        }
        let attempted = !reports.current.isEmpty
        let rejected = after.rejected - before.rejected
        var state = workspace.loadState()
        if attempted {
            state.lastAttempt = Date()
            // A success is an event delivered: a rejection answered the request, but nothing arrived.
            if after.delivered > before.delivered { state.lastSuccess = Date() }
            if remaining == 0 && rejected == 0 {
                state.consecutiveFailures = 0
                state.lastError = nil
            } else if rejected > 0 {
                let reason = reports.current.flatMap(\.rejections).last.map { ": \($0)" } ?? ""
                state.lastError = "\(rejected) event(s) rejected by the endpoint\(reason)"
            } else {
                state.consecutiveFailures += 1
                state.lastError = connection.lastFailure
            }
            try? workspace.save(state)
        }
        return (after.delivered - before.delivered, rejected, remaining)
    }
}
#endif
