#if Tools
#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif
public import TelemetryKit
import NIOCore
import NIOHTTP1
import NIOPosix
public import TelemetryKitTrackingPlan
import TelemetryKitSupport

/// A real HTTP ingest server on 127.0.0.1 for tests and local development.
///
/// It speaks the ingest protocol (`POST …/v2/namespace/{namespace}/`, JSON array of events,
/// gzip accepted), checks every event as strictly as TelemetryDeck's service does (a 400 whose
/// body names the event and the member otherwise, see ``WireFormat``), records events (and,
/// in the ``WireFormat/telemetryDeckWithEventIDs`` form, counts duplicates by `id`), serves
/// `GET /events` (JSON) and `GET /` (an HTML page of the latest events that refreshes itself),
/// and answers by a fault-injection script when a test asks it to.
///
/// ```swift
/// let collector = try await Collector.start()          // ephemeral port
/// collector.script([.status(503, retryAfter: "1"), .closeMidResponse])
/// collector.setMaximumBatchSize(40)                      // 413 above 40 events
/// // … point a transmitter at collector.baseURL …
/// await collector.shutdown()
/// ```
public final class Collector: Sendable {
    /// Where the collector listens and what it accepts.
    public struct Configuration: Sendable {
        /// The interface to bind; default loopback.
        public var host: String
        /// The port; 0 picks a free one.
        public var port: Int
        /// The largest body accepted (compressed or not), in bytes. Default 16 MiB.
        public var maximumBodyBytes: Int
        /// How many of the latest events `GET /` lists. Default 50.
        public var pageEventLimit: Int
        /// The event form accepted; anything else is answered 400. Default
        /// ``WireFormat/telemetryDeck``, what the HTTP transmitter sends by default and all
        /// TelemetryDeck's service accepts.
        public var wireFormat: WireFormat
        /// The plan received events are checked against; violating events are still
        /// accepted, and marked on `GET /` and in `GET /events` (nil: no check).
        public var trackingPlan: TrackingPlan?

        public init(
            host: String = "127.0.0.1",
            port: Int = 0,
            maximumBodyBytes: Int = 16 << 20,
            pageEventLimit: Int = 50,
            wireFormat: WireFormat = .telemetryDeck,
            trackingPlan: TrackingPlan? = nil
        ) {
            self.host = host
            self.port = port
            self.maximumBodyBytes = maximumBodyBytes
            self.pageEventLimit = pageEventLimit
            self.wireFormat = wireFormat
            self.trackingPlan = trackingPlan
        }
    }

    struct State {
        var events: [Event] = []
        var receptions: [UUID: Int] = [:]
        var duplicates = 0
        /// What is wrong with each received event that breaks the tracking plan, by event id.
        var planViolations: [UUID: [TrackingPlanViolation]] = [:]
        var requests: [IngestRequest] = []
        var script: [Fault] = []
        var randomFaults: RandomFaults?
        var generator = SplitMix64(seed: 0)
        var maximumBatchSize: Int?
        var observers: [@Sendable ([Event]) -> Void] = []
        /// How many connections were accepted.
        var connections = 0
    }

    public let configuration: Configuration
    /// The port the collector listens on.
    public let port: Int
    let state = Locked(State())
    private let serverChannel: any Channel
    private let acceptTask: Locked<Task<Void, Never>?>

    /// The base URL to configure a transmitter with, e.g. `http://127.0.0.1:49152`.
    public var baseURL: String {
        let host = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "http://\(host):\(port)"
    }

    /// Starts a collector and returns once it accepts connections.
    public static func start(_ configuration: Configuration = Configuration()) async throws -> Collector {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(ChannelOptions.backlog, value: 256)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
            .bind(host: configuration.host, port: configuration.port) { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                    return try Connection(wrappingChannelSynchronously: channel)
                }
            }
        guard let port = server.channel.localAddress?.port else {
            try? await server.channel.close()
            throw CollectorError("The collector's socket has no port.")
        }
        let collector = Collector(configuration: configuration, port: port, serverChannel: server.channel)
        let task: Task<Void, Never>
        if #available(macOS 15, iOS 18, tvOS 18, watchOS 11, visionOS 2, *) {
            // The connections (child tasks) inherit the preference; see ServingExecutor.
            let executor = ServingExecutor(label: "TelemetryKitCollector.port\(port)")
            task = Task(executorPreference: executor) { await accept(server, into: collector) }
        } else {
            task = Task { await accept(server, into: collector) }
        }
        collector.acceptTask.set(task)
        return collector
    }

    /// Accepts connections until the server channel closes, serving each in a child task.
    private static func accept(_ server: NIOAsyncChannel<Connection, Never>, into collector: Collector) async {
        await withDiscardingTaskGroup { group in
            do {
                try await server.executeThenClose { connections in
                    for try await connection in connections {
                        let number = collector.state.withLock { state in
                            defer { state.connections += 1 }
                            return state.connections
                        }
                        group.addTask { await collector.serve(connection, number: number) }
                    }
                }
            } catch {
                // The server channel closed (shutdown); connections end with the group.
            }
            group.cancelAll()
        }
    }

    private init(configuration: Configuration, port: Int, serverChannel: any Channel) {
        self.configuration = configuration
        self.port = port
        self.serverChannel = serverChannel
        self.acceptTask = Locked(nil)
    }

    /// Stops listening, closes every connection and returns when all are done.
    public func shutdown() async {
        try? await serverChannel.close()
        let task = acceptTask.withLock { task -> Task<Void, Never>? in
            defer { task = nil }
            return task
        }
        task?.cancel()
        await task?.value
    }

    // MARK: Recorded data

    /// Every distinct event received, in order of first reception.
    public var events: [Event] { state.withLock { $0.events } }

    /// The number of distinct events received.
    public var eventCount: Int { state.withLock { $0.events.count } }

    /// How many received events repeated an id seen before (always 0 in the
    /// ``WireFormat/telemetryDeck`` form, whose events carry no ids).
    public var duplicateCount: Int { state.withLock { $0.duplicates } }

    /// How often the event with `id` was received (0 if never).
    public func receptionCount(of id: UUID) -> Int {
        state.withLock { $0.receptions[id] ?? 0 }
    }

    /// How the event with `id` breaks the configuration's tracking plan (empty when it
    /// conforms, or without a plan).
    public func planViolations(of id: UUID) -> [TrackingPlanViolation] {
        state.withLock { $0.planViolations[id] ?? [] }
    }

    /// How many received events break the configuration's tracking plan.
    public var violatingEventCount: Int { state.withLock { $0.planViolations.count } }

    /// Every ingest request so far, in arrival order.
    public var requests: [IngestRequest] { state.withLock { $0.requests } }

    /// Forgets received events and requests (the fault settings stay).
    public func reset() {
        state.withLock { state in
            state.events = []
            state.receptions = [:]
            state.duplicates = 0
            state.planViolations = [:]
            state.requests = []
        }
    }

    /// Calls `handler` with each batch of newly received (non-duplicate) events.
    public func observe(_ handler: @escaping @Sendable ([Event]) -> Void) {
        state.withLock { $0.observers.append(handler) }
    }

    // MARK: Fault injection

    /// Answers the next ingest requests with `faults`, in order, before any other rule.
    public func script(_ faults: [Fault]) {
        state.withLock { $0.script.append(contentsOf: faults) }
    }

    /// The scripted faults not used yet.
    public var pendingScript: [Fault] { state.withLock { $0.script } }

    /// Draws faults at random for unscripted requests (nil turns it off).
    public func setRandomFaults(_ faults: RandomFaults?) {
        state.withLock { state in
            state.randomFaults = faults
            state.generator = SplitMix64(seed: faults?.seed ?? 0)
        }
    }

    /// Answers 413 to unscripted requests with more than `count` events (nil: no limit).
    public func setMaximumBatchSize(_ count: Int?) {
        state.withLock { $0.maximumBatchSize = count }
    }
}

/// A collector failure (startup).
public struct CollectorError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
#endif
