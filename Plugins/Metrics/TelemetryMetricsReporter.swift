#if Metrics
public import CoreMetrics
public import TelemetryKitClient
import TelemetryKitSupport

/// Publishes a client's counters (``TelemetryStats``) as swift-metrics, so operators read
/// what the SDK queued, delivered and dropped where they read every other number (Prometheus
/// through swift-prometheus, OpenTelemetry through swift-otel, StatsD, …).
///
/// The client counts in its own ``TelemetryStats``; the reporter reads them with
/// ``report()`` and adds what each counter grew by since the last report to a swift-metrics
/// `Counter`, and records the current size of each queue in a `Gauge`. ``run(every:)``
/// reports on a timer. Labels, each per destination with the dimension `destination`
/// (the client-wide ones without):
///
/// | label | kind | ``TelemetryStats`` |
/// |---|---|---|
/// | `telemetrykit_events_processed` | counter | ``TelemetryStats/processed`` |
/// | `telemetrykit_events_filtered` | counter | ``TelemetryStats/filtered`` (processors); per destination ``DestinationStats/filtered`` |
/// | `telemetrykit_events_failed` | counter | ``TelemetryStats/failed`` |
/// | `telemetrykit_events_dropped_before_start` | counter | ``TelemetryStats/droppedBeforeStart`` |
/// | `telemetrykit_events_accepted` | counter | ``DestinationStats/accepted`` |
/// | `telemetrykit_events_delivered` | counter | ``DestinationStats/delivered`` |
/// | `telemetrykit_events_rejected` | counter | ``DestinationStats/rejected`` |
/// | `telemetrykit_events_evicted` | counter | ``DestinationStats/evicted`` |
/// | `telemetrykit_events_retried` | counter | ``DestinationStats/retried`` |
/// | `telemetrykit_events_cache_failures` | counter | ``DestinationStats/cacheFailures`` |
/// | `telemetrykit_events_overflow_dropped` | counter | ``DestinationStats/overflowDropped`` |
/// | `telemetrykit_events_queued` | gauge | ``DestinationStats/queued`` |
/// | `telemetrykit_events_held_in_memory` | gauge | ``DestinationStats/heldInMemory`` |
///
/// ```swift
/// MetricsSystem.bootstrap(PrometheusMetricsFactory())   // the app's choice, once
/// let reporter = TelemetryMetricsReporter(client: client)
/// Task { await reporter.run(every: .seconds(15)) }       // or call `report()` before a scrape
/// ```
public final class TelemetryMetricsReporter: Sendable {
    /// The labels' common beginning (`telemetrykit`).
    public let labelPrefix: String
    /// Dimensions added to every metric (e.g. `[("app", "checkout")]`).
    public let dimensions: [(String, String)]

    private let client: TelemetryClient
    private let factory: any MetricsFactory
    private let state = Locked(State())

    private struct State {
        /// The stats at the last report, so counters grow by the difference.
        var last = TelemetryStats()
        /// Metric objects by label and destination ("" for the client), made once.
        var counters: [MetricKey: Counter] = [:]
        var gauges: [MetricKey: Gauge] = [:]
    }

    private struct MetricKey: Hashable {
        var name: String
        var destination: String
    }

    /// Creates a reporter for `client`.
    ///
    /// - Parameters:
    ///   - labelPrefix: the labels' common beginning; default `telemetrykit`.
    ///   - dimensions: dimensions added to every metric.
    ///   - factory: where the metrics go; default the bootstrapped `MetricsSystem.factory`.
    public init(
        client: TelemetryClient,
        labelPrefix: String = "telemetrykit",
        dimensions: [(String, String)] = [],
        factory: any MetricsFactory = MetricsSystem.factory
    ) {
        self.client = client
        self.labelPrefix = labelPrefix
        self.dimensions = dimensions
        self.factory = factory
    }

    /// Reads the client's counters once and publishes them.
    ///
    /// A counter that went down since the last report (which a client never does) adds
    /// nothing; the next growth counts from the lower value.
    public func report() async {
        let stats = await client.stats
        state.withLock { state in
            let last = state.last
            add(stats.processed - last.processed, "processed", destination: nil, to: &state)
            add(stats.filtered - last.filtered, "filtered", destination: nil, to: &state)
            add(stats.failed - last.failed, "failed", destination: nil, to: &state)
            add(
                stats.droppedBeforeStart - last.droppedBeforeStart,
                "dropped_before_start",
                destination: nil,
                to: &state
            )
            for (id, now) in stats.destinations.sorted(by: { $0.key < $1.key }) {
                let before = last.destinations[id] ?? DestinationStats()
                add(now.accepted - before.accepted, "accepted", destination: id, to: &state)
                add(now.filtered - before.filtered, "filtered", destination: id, to: &state)
                add(now.delivered - before.delivered, "delivered", destination: id, to: &state)
                add(now.rejected - before.rejected, "rejected", destination: id, to: &state)
                add(now.evicted - before.evicted, "evicted", destination: id, to: &state)
                add(now.retried - before.retried, "retried", destination: id, to: &state)
                add(now.cacheFailures - before.cacheFailures, "cache_failures", destination: id, to: &state)
                add(now.overflowDropped - before.overflowDropped, "overflow_dropped", destination: id, to: &state)
                record(now.queued, "queued", destination: id, to: &state)
                record(now.heldInMemory, "held_in_memory", destination: id, to: &state)
            }
            state.last = stats
        }
    }

    /// Reports every `interval` until the task is cancelled, then once more.
    public func run(every interval: Duration = .seconds(10)) async {
        while !Task.isCancelled {
            await report()
            do {
                try await Task.sleep(for: interval)
            } catch {
                break
            }
        }
        await report()
    }

    /// The label of the metric `name`: `<prefix>_events_<name>`.
    public func label(_ name: String) -> String {
        "\(labelPrefix)_events_\(name)"
    }

    private func metricDimensions(destination: String?) -> [(String, String)] {
        guard let destination else { return dimensions }
        return dimensions + [("destination", destination)]
    }

    private func add(_ delta: Int, _ name: String, destination: String?, to state: inout State) {
        let key = MetricKey(name: name, destination: destination ?? "")
        let counter: Counter
        if let existing = state.counters[key] {
            counter = existing
        } else {
            counter = Counter(
                label: label(name),
                dimensions: metricDimensions(destination: destination),
                factory: factory
            )
            state.counters[key] = counter
        }
        // Made on the first report even at 0, so a dashboard shows the series from the start.
        if delta > 0 { counter.increment(by: delta) }
    }

    private func record(_ value: Int, _ name: String, destination: String, to state: inout State) {
        let key = MetricKey(name: name, destination: destination)
        let gauge: Gauge
        if let existing = state.gauges[key] {
            gauge = existing
        } else {
            gauge = Gauge(label: label(name), dimensions: metricDimensions(destination: destination), factory: factory)
            state.gauges[key] = gauge
        }
        gauge.record(value)
    }
}
#endif
