#if OpenTelemetry
public import Instrumentation
public import TelemetryKit

/// Puts the trace and span of the request an event is sent in on the event, so that an OTLP
/// log record links to its trace (`traceId`, `spanId`, `flags`).
///
/// Events are processed later, on the client's intake task, where the request's
/// `ServiceContext.current` (a task-local) is gone. This processor therefore reads it where
/// the app sends the event (``CallSiteCapturing``: the client calls it inside `event(...)` and
/// `send(...)`), and the trace travels with the event through the durable cache as three
/// metadata entries: ``traceIDKey`` (32 hex digits), ``spanIDKey`` (16 hex digits) and
/// ``traceFlagsKey`` (an integer). ``OTLPEventTransmitter`` moves them into the record's
/// trace fields; other destinations see them as payload entries (the names swift-otel's
/// logging metadata provider uses, so logs and events correlate the same way). An event sent
/// outside any trace gets none of them.
///
/// The span is read in W3C Trace Context form, the one way every swift-distributed-tracing
/// tracer hands its span out: `Instrument.inject` writes a `traceparent` value. swift-otel's
/// tracer keeps its span context under a private `ServiceContext` key and injects it exactly
/// so, hence this needs no dependency on swift-otel (nor on any other tracer). A context
/// that carries a ``TraceParentKey`` value is read from that key first: for apps that
/// propagate traces by hand or whose tracer is not the bootstrapped instrument.
///
/// ```swift
/// InstrumentationSystem.bootstrap(tracer)   // e.g. swift-otel's, at startup
/// let client = TelemetryClient(configuration: config,
///                              processors: [TraceContextProcessor()] + otherProcessors, …)
/// router.get("checkout") { request, context in
///     await client.send("Checkout.started")   // carries the request span's trace_id and span_id
///     …
/// }
/// ```
public struct TraceContextProcessor: SynchronousEventProcessor, CallSiteCapturing {
    /// The metadata key of the trace id: 32 lowercase hex digits.
    public static let traceIDKey = "trace_id"
    /// The metadata key of the span id: 16 lowercase hex digits.
    public static let spanIDKey = "span_id"
    /// The metadata key of the W3C trace flags (bit 0: sampled), an integer 0–255.
    public static let traceFlagsKey = "trace_flags"
    static let keys: Set<String> = [traceIDKey, spanIDKey, traceFlagsKey]

    private let instrument: (any Instrument)?

    /// Creates the processor.
    ///
    /// - Parameter instrument: the instrument whose `inject` writes the span's `traceparent`;
    ///   `nil` (the default) asks `InstrumentationSystem.instrument` for every event, so a
    ///   tracer bootstrapped after the client was built is still used.
    public init(instrument: (any Instrument)? = nil) {
        self.instrument = instrument
    }

    /// The trace of the sender's `ServiceContext.current`, or `nil` outside a trace.
    public func captureCallSite() -> [String: PayloadValue]? {
        guard let context = ServiceContext.current else { return nil }
        guard
            let traceParent = Self.traceParent(in: context, instrument: instrument ?? InstrumentationSystem.instrument)
        else { return nil }
        return [
            Self.traceIDKey: .string(traceParent.traceID),
            Self.spanIDKey: .string(traceParent.spanID),
            Self.traceFlagsKey: .int(Int64(traceParent.flags)),
        ]
    }

    /// The trace is added by ``captureCallSite()``; nothing is left to do per event here.
    public func process(_ input: inout EventInput, context: inout EventContext) throws {}

    /// The span of `context`: its ``TraceParentKey`` value, else what `instrument` injects.
    static func traceParent(in context: ServiceContext, instrument: any Instrument) -> W3CTraceParent? {
        if let explicit = context[TraceParentKey.self] { return explicit }
        var carrier = TraceParentCarrier()
        instrument.inject(context, into: &carrier, using: TraceParentInjector())
        return carrier.traceParent.flatMap(W3CTraceParent.init)
    }
}

/// The `ServiceContext` key of a span in W3C form, for apps that put the span there
/// themselves (a hand-propagated `traceparent`, or a tracer that is not the bootstrapped
/// instrument). ``TraceContextProcessor`` reads it before asking the instrument.
///
/// ```swift
/// var context = ServiceContext.current ?? .topLevel
/// context[TraceParentKey.self] = W3CTraceParent(request.headers["traceparent"] ?? "")
/// await ServiceContext.withValue(context) { await client.send("Order.placed") }
/// ```
public enum TraceParentKey: ServiceContextKey {
    public typealias Value = W3CTraceParent
    public static let nameOverride: String? = "traceparent"
}

/// Keeps the one header the processor reads.
struct TraceParentCarrier: Sendable {
    var traceParent: String?
}

/// Takes `traceparent` from an instrument's injection and ignores the rest (`tracestate`,
/// baggage, vendor headers).
struct TraceParentInjector: Injector {
    func inject(_ value: String, forKey key: String, into carrier: inout TraceParentCarrier) {
        if key.lowercased() == "traceparent" { carrier.traceParent = value }
    }
}
#endif
