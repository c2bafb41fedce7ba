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

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A real HTTP ingest server on 127.0.0.1 for tests and local development.
///
/// It speaks the ingest protocol (`POST …/v2/namespace/{namespace}/`, JSON array of events,
/// gzip accepted), checks every event as strictly as TelemetryDeck's service does (a 400 whose
/// body names the event and the member otherwise, see ``WireFormat``), records events (and,
/// in the ``WireFormat/telemetryDeckWithEventIDs`` form, counts duplicates by `id`), serves
/// `GET /events` (JSON, paged) and `GET /` (a live page of the latest events, their counts per
/// type and minute, and the rejected requests), and answers by a fault-injection script when
/// a test asks it to.
///
/// By default it keeps everything, which a test that checks delivery exactly once needs; a
/// collector left running (`telemetrykit collect`) keeps only the latest events and requests
/// (``Retention``) and counts the rest, so its memory stays bounded.
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
        /// What the collector keeps of the events and requests it receives. Default
        /// ``Retention/everything``.
        public var retention: Retention
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
            retention: Retention = .everything,
            wireFormat: WireFormat = .telemetryDeck,
            trackingPlan: TrackingPlan? = nil
        ) {
            self.host = host
            self.port = port
            self.maximumBodyBytes = maximumBodyBytes
            self.retention = retention
            self.wireFormat = wireFormat
            self.trackingPlan = trackingPlan
        }
    }

    /// How many of the received events and ingest requests a collector keeps.
    ///
    /// Counts (received, duplicates, requests, rejected, per type, per minute) always cover
    /// everything; only the events and requests themselves are dropped, oldest first.
    public struct Retention: Sendable, Hashable {
        /// The latest events kept; nil keeps every one.
        public var events: Int?
        /// The latest ingest requests kept, bodies included; nil keeps every one.
        public var requests: Int?

        /// Every event and request, for tests that check what arrived, and how often.
        public static let everything = Retention(events: nil, requests: nil)

        /// The latest `events` events and `requests` requests: memory that does not grow with
        /// the time a collector runs. No request by default: each holds its body, up to
        /// ``Configuration/maximumBodyBytes``, and only a test reads them.
        public static func latest(events: Int, requests: Int = 0) -> Retention {
            Retention(events: max(0, events), requests: max(0, requests))
        }
    }

    struct State {
        /// The kept events, oldest first; the last is the `received`th event.
        var events = CircularBuffer<Event>()
        /// How many distinct events arrived; also the sequence number of the newest.
        var received = 0
        /// Receptions by id, only in the form whose events carry ids (the only one in which a
        /// repeat can be recognised, and where every id must be remembered to recognise it).
        var receptions: [UUID: Int] = [:]
        var duplicates = 0
        /// What is wrong with each kept event that breaks the tracking plan, by event id.
        var planViolations: [UUID: [TrackingPlanViolation]] = [:]
        /// How many received events broke the tracking plan, kept or not.
        var violatingEvents = 0
        /// The kept ingest requests, oldest first.
        var requests = CircularBuffer<IngestRequest>()
        /// How many ingest requests arrived.
        var requestCount = 0
        /// The latest rejections, oldest first, at most `Collector.keptRejections`.
        var rejections = CircularBuffer<Rejection>()
        var rejectedCount = 0
        var tally = EventTally()
        var script: [Fault] = []
        var randomFaults: RandomFaults?
        var generator = SplitMix64(seed: 0)
        var maximumBatchSize: Int?
        var observers: [@Sendable ([Event]) -> Void] = []
        var rejectionObservers: [@Sendable (Rejection) -> Void] = []
        /// How many connections were accepted.
        var connections = 0
    }

    /// How many of the latest rejections are kept: a page's worth; a client that sends
    /// thousands of bad requests shows the same mistake over and over.
    static let keptRejections = 100

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
        let server: NIOAsyncChannel<Connection, Never>
        do {
            server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(ChannelOptions.backlog, value: 256)
                .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
                .childChannelOption(ChannelOptions.socketOption(.tcp_nodelay), value: 1)
                .bind(host: configuration.host, port: configuration.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline()
                        return try Connection(wrappingChannelSynchronously: channel)
                    }
                }
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw CollectorError(
                "\(configuration.host):\(configuration.port) is already in use by another process.",
                reason: .addressInUse
            )
        } catch {
            throw CollectorError("Cannot listen on \(configuration.host):\(configuration.port): \(error)")
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

    /// The kept distinct events (every one, or the latest, see ``Retention``), in order of
    /// first reception.
    public var events: [Event] { state.withLock { Array($0.events) } }

    /// The number of distinct events received, kept or not.
    public var eventCount: Int { state.withLock { $0.received } }

    /// How many received events repeated an id seen before (always 0 in the
    /// ``WireFormat/telemetryDeck`` form, whose events carry no ids).
    public var duplicateCount: Int { state.withLock { $0.duplicates } }

    /// How often the event with `id` was received (0 if never). In the
    /// ``WireFormat/telemetryDeck`` form, where each event gets a fresh id, 1 for a kept event.
    public func receptionCount(of id: UUID) -> Int {
        state.withLock { state in
            if configuration.wireFormat == .telemetryDeck {
                return state.events.contains { $0.id == id } ? 1 : 0
            }
            return state.receptions[id] ?? 0
        }
    }

    /// How the kept event with `id` breaks the configuration's tracking plan (empty when it
    /// conforms, or without a plan).
    public func planViolations(of id: UUID) -> [TrackingPlanViolation] {
        state.withLock { $0.planViolations[id] ?? [] }
    }

    /// How many received events break the configuration's tracking plan.
    public var violatingEventCount: Int { state.withLock { $0.violatingEvents } }

    /// The kept ingest requests (every one, or the latest, see ``Retention``), in arrival order.
    public var requests: [IngestRequest] { state.withLock { Array($0.requests) } }

    /// The number of ingest requests received, kept or not.
    public var requestCount: Int { state.withLock { $0.requestCount } }

    /// The latest requests refused for what they sent (at most 100), oldest first.
    public var rejections: [Rejection] { state.withLock { Array($0.rejections) } }

    /// How many requests were refused for what they sent.
    public var rejectedCount: Int { state.withLock { $0.rejectedCount } }

    /// Distinct events received per type, kept or not.
    public var countsByType: [String: Int] { state.withLock { $0.tally.byType } }

    /// Forgets received events, requests, rejections and counts (the fault settings stay).
    public func reset() {
        state.withLock { state in
            state.events = []
            state.received = 0
            state.receptions = [:]
            state.duplicates = 0
            state.planViolations = [:]
            state.violatingEvents = 0
            state.requests = []
            state.requestCount = 0
            state.rejections = []
            state.rejectedCount = 0
            state.tally = EventTally()
        }
    }

    /// Calls `handler` with each batch of newly received (non-duplicate) events.
    public func observe(_ handler: @escaping @Sendable ([Event]) -> Void) {
        state.withLock { $0.observers.append(handler) }
    }

    /// Calls `handler` with each rejection as it is answered.
    public func observeRejections(_ handler: @escaping @Sendable (Rejection) -> Void) {
        state.withLock { $0.rejectionObservers.append(handler) }
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
    /// What went wrong, as far as a caller would act on it.
    public enum Reason: Sendable, Hashable {
        /// The port is taken: a caller can pick another one.
        case addressInUse
        case other
    }

    public var description: String
    public var reason: Reason

    public init(_ description: String, reason: Reason = .other) {
        self.description = description
        self.reason = reason
    }
}
#endif
