#if OpenTelemetry
import Foundation
import Instrumentation
import TelemetryKit
import TelemetryKitHTTP
import TelemetryKitOpenTelemetry
import TelemetryKitSQLiteCache
import TelemetryKitTesting
import Testing

/// A tracer's instrument built the way swift-otel's is: the span context lives under a
/// private `ServiceContext` key, and `inject` hands it out as W3C `traceparent` (plus a
/// `tracestate`, which the processor must ignore).
struct W3CTestInstrument: Instrument {
    struct SpanContext: Sendable {
        var traceID: String
        var spanID: String
        var sampled: Bool
    }

    private enum SpanContextKey: ServiceContextKey {
        typealias Value = SpanContext
        static let nameOverride: String? = "test-span-context"
    }

    /// A context inside the span `spanID` of trace `traceID`.
    static func context(traceID: String, spanID: String, sampled: Bool = true) -> ServiceContext {
        var context = ServiceContext.topLevel
        context[SpanContextKey.self] = SpanContext(traceID: traceID, spanID: spanID, sampled: sampled)
        return context
    }

    func extract<Carrier, Extract>(_ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract)
    where Extract: Extractor, Extract.Carrier == Carrier {
        guard let value = extractor.extract(key: "traceparent", from: carrier), let parent = W3CTraceParent(value)
        else { return }
        context[SpanContextKey.self] = SpanContext(
            traceID: parent.traceID,
            spanID: parent.spanID,
            sampled: parent.flags & 1 == 1
        )
    }

    func inject<Carrier, Inject>(_ context: ServiceContext, into carrier: inout Carrier, using injector: Inject)
    where Inject: Injector, Inject.Carrier == Carrier {
        guard let span = context[SpanContextKey.self] else { return }
        injector.inject("vendor=abc", forKey: "tracestate", into: &carrier)
        injector.inject(
            "00-\(span.traceID)-\(span.spanID)-\(span.sampled ? "01" : "00")",
            forKey: "traceparent",
            into: &carrier
        )
    }
}

@Suite("Trace correlation")
struct TraceCorrelationTests {
    static let traceID = "0af7651916cd43dd8448eb211c80319c"
    static let spanID = "b7ad6b7169203331"

    @Test("inside a span the processor captures its ids; outside any trace nothing")
    func capture() {
        let processor = TraceContextProcessor(instrument: W3CTestInstrument())
        #expect(processor.captureCallSite() == nil)
        ServiceContext.withValue(ServiceContext.topLevel) {
            #expect(processor.captureCallSite() == nil)  // a context without a span
        }
        ServiceContext.withValue(W3CTestInstrument.context(traceID: Self.traceID, spanID: Self.spanID)) {
            #expect(
                processor.captureCallSite() == [
                    "trace_id": .string(Self.traceID),
                    "span_id": .string(Self.spanID),
                    "trace_flags": .int(1),
                ]
            )
        }
        ServiceContext.withValue(W3CTestInstrument.context(traceID: Self.traceID, spanID: Self.spanID, sampled: false))
        {
            #expect(processor.captureCallSite()?["trace_flags"] == .int(0))
        }
    }

    @Test("a TraceParentKey value is read before the instrument")
    func explicitKey() throws {
        var context = W3CTestInstrument.context(traceID: Self.traceID, spanID: Self.spanID)
        let parent = try #require(W3CTraceParent("00-11111111111111111111111111111111-2222222222222222-01"))
        context[TraceParentKey.self] = parent
        // The default reads InstrumentationSystem.instrument, a no-op here: only the key can answer.
        let processor = TraceContextProcessor()
        ServiceContext.withValue(context) {
            #expect(processor.captureCallSite()?["trace_id"] == .string("11111111111111111111111111111111"))
            #expect(processor.captureCallSite()?["span_id"] == .string("2222222222222222"))
        }
        ServiceContext.withValue(W3CTestInstrument.context(traceID: Self.traceID, spanID: Self.spanID)) {
            #expect(processor.captureCallSite() == nil)
        }
    }

    @Test("the client captures the trace where the event is sent, not where it is processed")
    func clientCapturesAtCallSite() async {
        let spy = SpyEventTransmitter()
        let client = TelemetryClient(
            configuration: .init(appID: "APP"),
            processors: [TraceContextProcessor(instrument: W3CTestInstrument())],
            destinations: [Destination(id: "spy", transmitter: spy)],
            storage: InMemoryProcessorStorage(),
            logger: SilentLogger()
        )
        let traced = W3CTestInstrument.context(traceID: Self.traceID, spanID: Self.spanID)
        // Sent before start: processed later, on the intake task, long after the span ended.
        ServiceContext.withValue(traced) { client.event("Early.traced") }
        client.event("Early.untraced")
        await client.start()
        await ServiceContext.withValue(traced) {
            _ = await client.send("Checkout.started", parameters: ["trace_id": "mine"])
        }
        await client.send("Checkout.untraced")
        await client.flush()
        let events = spy.deliveredEvents
        #expect(events.map(\.type) == ["Early.traced", "Early.untraced", "Checkout.started", "Checkout.untraced"])
        #expect(events[0].payloadValue(forKey: "trace_id") == .string(Self.traceID))
        #expect(events[0].payloadValue(forKey: "span_id") == .string(Self.spanID))
        #expect(events[0].payloadValue(forKey: "trace_flags") == .int(1))
        #expect(events[1].payloadValue(forKey: "trace_id") == nil)
        // The event's own parameter wins over the captured metadata, as parameters always do.
        #expect(events[2].payloadValue(forKey: "trace_id") == .string("mine"))
        #expect(events[2].payloadValue(forKey: "span_id") == .string(Self.spanID))
        #expect(events[3].payloadValue(forKey: "span_id") == nil)
        await client.shutdown()
    }

    @Test("from a durable queue through 503, reset, 429 with Retry-After, 502 and 504: nothing lost, each event once")
    func durableQueueThroughFaults() async throws {
        let receiver = try await OTLPReceiver.start()
        let faults = ["status:503", "reset", "status:429:retry-after:1", "status:502", "status:504"]
        try await receiver.inject(faults)
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let cache = try SQLiteEventCache(fileURL: directory.file("otlp.sqlite"), logger: SilentLogger())
        let transmitter = try OTLPEventTransmitter(
            configuration: OTLPEventTransmitterTests.configuration(receiver.endpoint, compression: .gzip),
            logger: SilentLogger()
        )
        let client = TelemetryClient(
            configuration: .init(appID: "APP"),
            processors: [TraceContextProcessor(instrument: W3CTestInstrument())],
            destinations: [
                Destination(
                    id: "otlp",
                    transmitter: transmitter,
                    cache: cache,
                    policy: DeliveryPolicy(
                        flushInterval: 3600,
                        maxBatchCount: 4,
                        backoff: BackoffPolicy(initial: 0.05, multiplier: 1, maximum: 0.05, jitter: 0)
                    )
                )
            ],
            storage: InMemoryProcessorStorage(),
            logger: SilentLogger()
        )
        await client.start()
        let traced = W3CTestInstrument.context(traceID: Self.traceID, spanID: Self.spanID)
        for index in 0..<10 {
            let parameters: EventParameters = ["index": index, "traced": index < 5]
            if index < 5 {
                await ServiceContext.withValue(traced) {
                    _ = await client.send("Order.step", parameters: parameters)
                }
            } else {
                await client.send("Order.step", parameters: parameters)
            }
        }
        let deadline = Date().addingTimeInterval(60)
        var result = await client.flush()
        while result != .complete, Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
            result = await client.flush()
        }
        #expect(result == .complete)

        let state = try await receiver.state()
        #expect(state.errors == [])
        #expect(state.served == faults)
        #expect(state.records.count == 10)
        let byIndex = Dictionary(grouping: state.records) { $0.attributes["index"]?[1] ?? "?" }
        #expect(byIndex.keys.sorted() == (0..<10).map(String.init).sorted())
        for (index, records) in byIndex {
            let record = try #require(
                records.count == 1 ? records.first : nil,
                "index \(index) arrived \(records.count)×"
            )
            let isTraced = Int(index)! < 5
            #expect(record.eventName == "Order.step")
            #expect(record.attributes["traced"] == ["bool", isTraced ? "true" : "false"])
            #expect(record.attributes["telemetrykit.app_id"] == ["string", "APP"])
            #expect(record.attributes["log.record.uid"]?[0] == "string")
            #expect(record.traceId == (isTraced ? Self.traceID : ""))
            #expect(record.spanId == (isTraced ? Self.spanID : ""))
            #expect(record.flags == (isTraced ? 1 : 0))
            #expect(record.attributes["trace_id"] == nil)
            #expect(record.gzip)
        }
        let stats = try #require(await client.stats.destinations["otlp"])
        #expect(stats.delivered == 10)
        #expect(stats.rejected == 0)
        #expect(stats.retried >= faults.count)
        #expect(stats.queued == 0)
        #expect(await cache.count() == 0)
        await client.shutdown()
    }
}
#endif
