#if Tools
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
import NIOCore
import NIOHTTP1
import TelemetryKit
import TelemetryKitTrackingPlan
import TelemetryKitSupport

/// What the collector sends back for one request.
enum CollectorReply {
    /// A complete response.
    case response(status: Int, headers: [(String, String)], body: [UInt8])
    /// A response head promising `body`, half of `body`, then the connection closes.
    case truncated(body: [UInt8])
    /// A complete response on a connection kept alive, which then closes as `after` says.
    case responseThenClose(status: Int, headers: [(String, String)], body: [UInt8], after: KeepAliveClose)

    /// When a connection kept alive after a response closes.
    enum KeepAliveClose {
        /// After this many seconds without a new request.
        case idle(TimeInterval)
        /// When the next request arrives, without answering it.
        case reuse
    }

    static func text(_ status: Int, _ message: String) -> CollectorReply {
        .response(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")], body: Array(message.utf8))
    }

    static func json(_ status: Int, _ bytes: [UInt8]) -> CollectorReply {
        .response(status: status, headers: [("Content-Type", "application/json")], body: bytes)
    }
}

extension Collector {
    typealias Connection = NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>

    /// Serves one connection (the `number`th accepted): requests in order, keep-alive honoured.
    func serve(_ connection: Connection, number: Int) async {
        let channel = connection.channel
        // The pending close of a `closeWhenIdle` fault; a new request on the connection
        // cancels it, as a server's keep-alive timer is reset by activity.
        var idleClose: Task<Void, Never>?
        defer { idleClose?.cancel() }
        // Set by a `closeWhenReused` fault: the next request ends the connection unanswered.
        var closeWhenReused = false
        do {
            try await connection.executeThenClose { inbound, outbound in
                var head: HTTPRequestHead?
                var body = ByteBuffer()
                var bodyTooLarge = false
                for try await part in inbound {
                    switch part {
                    case .head(let requestHead):
                        if closeWhenReused { return }
                        idleClose?.cancel()
                        idleClose = nil
                        head = requestHead
                        body.clear()
                        bodyTooLarge = false
                    case .body(var chunk):
                        if body.readableBytes + chunk.readableBytes > configuration.maximumBodyBytes {
                            bodyTooLarge = true
                        } else if !bodyTooLarge {
                            body.writeBuffer(&chunk)
                        }
                    case .end:
                        guard let requestHead = head else { continue }
                        head = nil
                        let reply: CollectorReply
                        if bodyTooLarge {
                            let reason = "The body exceeds \(configuration.maximumBodyBytes) bytes."
                            reject(
                                Rejection(
                                    time: Date(),
                                    status: 413,
                                    path: Self.splitURI(requestHead.uri).path,
                                    reason: reason
                                )
                            )
                            reply = .text(413, reason)
                        } else {
                            reply = await handle(
                                requestHead,
                                body: Array(body.readableBytesView),
                                connection: number
                            )
                        }
                        switch reply {
                        case .response(let status, let headers, let bytes):
                            try await Self.write(status, headers, bytes, answering: requestHead, to: outbound)
                            if !requestHead.isKeepAlive { return }
                        case .responseThenClose(let status, let headers, let bytes, let after):
                            try await Self.write(status, headers, bytes, answering: requestHead, to: outbound)
                            if !requestHead.isKeepAlive { return }
                            switch after {
                            case .reuse:
                                closeWhenReused = true
                            case .idle(let seconds):
                                idleClose = Task {
                                    guard await Self.sleep(seconds) else { return }
                                    // A close, not a reset: what a server's keep-alive timeout sends.
                                    try? await channel.close()
                                }
                            }
                        case .truncated(let bytes):
                            let responseHead = HTTPResponseHead(
                                version: requestHead.version,
                                status: .ok,
                                headers: ["Content-Type": "application/json", "Content-Length": String(bytes.count)]
                            )
                            let half = ByteBuffer(bytes: bytes.prefix(bytes.count / 2))
                            try await outbound.write(contentsOf: [.head(responseHead), .body(.byteBuffer(half))])
                            return
                        }
                    }
                }
            }
        } catch {
            // A client that went away (timeout, reset) ends its connection; nothing to report.
        }
    }

    /// Writes a complete response to `request`, saying `Connection: close` when the client
    /// did not ask to keep the connection.
    private static func write(
        _ status: Int,
        _ headers: [(String, String)],
        _ bytes: [UInt8],
        answering request: HTTPRequestHead,
        to outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>
    ) async throws {
        var responseHeaders = HTTPHeaders(headers)
        responseHeaders.replaceOrAdd(name: "Content-Length", value: String(bytes.count))
        if !request.isKeepAlive {
            responseHeaders.replaceOrAdd(name: "Connection", value: "close")
        }
        let responseHead = HTTPResponseHead(
            version: request.version,
            status: HTTPResponseStatus(statusCode: status),
            headers: responseHeaders
        )
        try await outbound.write(
            contentsOf: [.head(responseHead), .body(.byteBuffer(ByteBuffer(bytes: bytes))), .end(nil)]
        )
    }

    /// Routes one complete request that came on the `connection`th connection.
    func handle(_ head: HTTPRequestHead, body: [UInt8], connection: Int) async -> CollectorReply {
        let (path, query) = Self.splitURI(head.uri)
        if let namespace = Self.namespace(inPath: path) {
            guard head.method == .POST else { return .text(405, "Use POST to send events.") }
            return await ingest(head, path: path, namespace: namespace, rawBody: body, connection: connection)
        }
        guard head.method == .GET || head.method == .HEAD else { return .text(404, "Not found: \(path)") }
        switch path {
        case "/":
            return .response(
                status: 200,
                headers: [("Content-Type", "text/html; charset=utf-8"), ("Cache-Control", "no-store")],
                body: Array(CollectorPage.html.utf8)
            )
        case "/events":
            let since = Self.queryValue("since", in: query)
            let limit = Self.queryValue("limit", in: query)
            guard let page = EventPage(since: since, limit: limit) else {
                return .text(400, "since and limit must be whole numbers of at least 0.")
            }
            return .json(200, eventsDocument(page))
        default:
            return .text(404, "Not found: \(path)")
        }
    }

    // MARK: Ingest

    private enum Decoded {
        case events([Event], body: [UInt8])
        /// A body refused for what it is; `failure` when the parser found the fault.
        case invalid(status: Int, reason: String, body: [UInt8], failure: IngestParser.Failure?)
    }

    private func ingest(
        _ head: HTTPRequestHead,
        path: String,
        namespace: String,
        rawBody: [UInt8],
        connection: Int
    ) async -> CollectorReply {
        let scripted = state.withLock { state -> Fault? in state.script.isEmpty ? nil : state.script.removeFirst() }
        if let scripted, scripted.delay > 0, await !Self.sleep(scripted.delay) {
            return .text(503, "The collector is shutting down.")
        }

        var headers = [String: String]()
        for header in head.headers {
            let name = header.name.lowercased()
            headers[name] = headers[name].map { "\($0), \(header.value)" } ?? header.value
        }
        let gzipped = headers["content-encoding"]?.lowercased().contains("gzip") ?? false
        let decoded = decode(rawBody, gzipped: gzipped, contentType: headers["content-type"])

        var record = IngestRequest(
            index: 0,
            connection: connection,
            method: head.method.rawValue,
            path: path,
            namespace: namespace,
            headers: headers,
            rawBodyByteCount: rawBody.count,
            body: Data(rawBody),
            wasGzipped: gzipped,
            eventIDs: [],
            fault: scripted,
            status: nil,
            recorded: false
        )
        let events: [Event]
        switch decoded {
        case .events(let decodedEvents, let body):
            events = decodedEvents
            record.body = Data(body)
            record.eventIDs = decodedEvents.map(\.id)
        case .invalid(let status, let reason, let body, let failure):
            record.body = Data(body)
            if case .status(let code, let fields, let text)? = scripted?.action {
                return finish(record, status: code, headers: fields, text: text)
            }
            reject(
                Rejection(
                    time: Date(),
                    status: status,
                    path: path,
                    reason: reason,
                    eventIndex: failure?.event?.index,
                    member: failure?.member,
                    event: failure?.event.map {
                        IngestParser.excerpt(of: body, from: $0.start, limit: Rejection.excerptLimit)
                    }
                )
            )
            return finish(record, status: status, headers: [:], text: reason)
        }

        var fault = scripted
        if fault == nil {
            fault = state.withLock { state -> Fault? in
                if let maximum = state.maximumBatchSize, events.count > maximum {
                    return .status(413, body: "At most \(maximum) events per request.")
                }
                guard let random = state.randomFaults else { return nil }
                return random.fault(forUnit: state.generator.nextUnit())
            }
            record.fault = fault
            if let fault, fault.delay > 0, await !Self.sleep(fault.delay) {
                return .text(503, "The collector is shutting down.")
            }
        }

        switch fault?.action {
        case .status(let code, let fields, let text):
            return finish(record, status: code, headers: fields, text: text)
        case .closeMidResponse:
            record.recorded = true
            let accepted = store(events, request: record)
            return .truncated(body: Self.acceptedBody(accepted: accepted, total: events.count))
        case .accept, nil:
            record.recorded = true
            record.status = 200
            let accepted = store(events, request: record)
            return .json(200, Self.acceptedBody(accepted: accepted, total: events.count))
        case .closeWhenIdle, .closeWhenReused:
            record.recorded = true
            record.status = 200
            let accepted = store(events, request: record)
            var after = CollectorReply.KeepAliveClose.reuse
            if case .closeWhenIdle(let seconds)? = fault?.action { after = .idle(seconds) }
            return .responseThenClose(
                status: 200,
                headers: [("Content-Type", "application/json")],
                body: Self.acceptedBody(accepted: accepted, total: events.count),
                after: after
            )
        }
    }

    private func finish(
        _ request: IngestRequest,
        status: Int,
        headers fields: [String: String],
        text: String?
    )
        -> CollectorReply
    {
        var request = request
        request.status = status
        state.withLock { state in state.keep(request, retention: configuration.retention) }
        var headers: [(String, String)] = [("Content-Type", "text/plain; charset=utf-8")]
        for (name, value) in fields.sorted(by: { $0.key < $1.key }) { headers.append((name, value)) }
        let message = text ?? HTTPResponseStatus(statusCode: status).reasonPhrase
        return .response(status: status, headers: headers, body: Array(message.utf8))
    }

    /// Records `events`, counting repeats of known ids; returns how many were new.
    private func store(_ events: [Event], request: IngestRequest) -> Int {
        // Checked before taking the lock; a repeated event's result is not used.
        let violations = configuration.trackingPlan.map { plan in
            events.map { plan.violations(name: $0.type, parameters: $0.payload, floatValue: $0.floatValue) }
        }
        let arrival = Date().timeIntervalSince1970
        let countsRepeats = configuration.wireFormat == .telemetryDeckWithEventIDs
        let retention = configuration.retention
        let (fresh, observers) = state.withLock { state -> ([Event], [@Sendable ([Event]) -> Void]) in
            state.keep(request, retention: retention)
            var fresh = [Event]()
            for (position, event) in events.enumerated() {
                if countsRepeats {
                    let count = state.receptions[event.id, default: 0]
                    state.receptions[event.id] = count + 1
                    if count > 0 {
                        state.duplicates += 1
                        continue
                    }
                }
                let found = violations?[position] ?? []
                state.keep(event, violations: found, retention: retention)
                state.tally.count(event.type, atSecondsSince1970: arrival)
                fresh.append(event)
            }
            return (fresh, state.observers)
        }
        if !fresh.isEmpty {
            for observer in observers { observer(fresh) }
        }
        return fresh.count
    }

    /// Counts and keeps `rejection`, and tells the observers.
    func reject(_ rejection: Rejection) {
        let observers = state.withLock { state in
            state.rejectedCount += 1
            state.rejections.append(rejection)
            if state.rejections.count > Self.keptRejections { state.rejections.removeFirst() }
            return state.rejectionObservers
        }
        for observer in observers { observer(rejection) }
    }

    private func decode(_ rawBody: [UInt8], gzipped: Bool, contentType: String?) -> Decoded {
        var body = rawBody
        if gzipped {
            do {
                body = try Inflate.decompress(rawBody, limit: configuration.maximumBodyBytes * 4)
            } catch {
                return .invalid(status: 400, reason: "\(error)", body: rawBody, failure: nil)
            }
        }
        guard let contentType, contentType.lowercased().hasPrefix("application/json") else {
            return .invalid(
                status: 415,
                reason: "Content-Type must be application/json, not \(contentType ?? "missing").",
                body: body,
                failure: nil
            )
        }
        do {
            return .events(try IngestParser.events(in: body, format: configuration.wireFormat), body: body)
        } catch {
            return .invalid(status: 400, reason: "Malformed body: \(error)", body: body, failure: error)
        }
    }

    private static func acceptedBody(accepted: Int, total: Int) -> [UInt8] {
        Array(#"{"accepted":\#(total),"new":\#(accepted),"duplicates":\#(total - accepted)}"#.utf8)
    }

    /// Sleeps; false when cancelled (shutdown).
    private static func sleep(_ seconds: TimeInterval) async -> Bool {
        do {
            try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            return true
        } catch {
            return false
        }
    }

    // MARK: Paths

    static func splitURI(_ uri: String) -> (path: String, query: String?) {
        guard let mark = uri.firstIndex(of: "?") else { return (uri, nil) }
        return (String(uri[..<mark]), String(uri[uri.index(after: mark)...]))
    }

    /// The namespace of an ingest path `…/v2/namespace/{namespace}/` (trailing slash optional).
    static func namespace(inPath path: String) -> String? {
        var segments = path.split(separator: "/", omittingEmptySubsequences: false)
        if segments.last == "" { segments.removeLast() }
        guard segments.count >= 4 else { return nil }
        let tail = segments.suffix(3)
        let parts = Array(tail)
        guard parts[0] == "v2", parts[1] == "namespace", !parts[2].isEmpty else { return nil }
        return percentDecoded(parts[2])
    }

    /// `%XX` sequences decoded; the text unchanged when a sequence is invalid.
    static func percentDecoded(_ text: Substring) -> String {
        let utf8 = Array(text.utf8)
        var bytes = [UInt8]()
        bytes.reserveCapacity(utf8.count)
        var index = 0
        func hexValue(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
            default: return nil
            }
        }
        while index < utf8.count {
            if utf8[index] == UInt8(ascii: "%") {
                guard index + 2 < utf8.count, let high = hexValue(utf8[index + 1]), let low = hexValue(utf8[index + 2])
                else { return String(text) }
                bytes.append(high << 4 | low)
                index += 3
            } else {
                bytes.append(utf8[index])
                index += 1
            }
        }
        return String(validating: bytes, as: UTF8.self) ?? String(text)
    }

    static func queryValue(_ name: String, in query: String?) -> String? {
        guard let query else { return nil }
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1)
            if parts.first.map(String.init) == name { return parts.count > 1 ? String(parts[1]) : "" }
        }
        return nil
    }
}
extension Collector.State {
    /// Numbers and keeps `request`, dropping the oldest beyond the retention.
    mutating func keep(_ request: IngestRequest, retention: Collector.Retention) {
        var request = request
        request.index = requestCount
        requestCount += 1
        requests.append(request)
        if let limit = retention.requests, requests.count > limit { requests.removeFirst() }
    }

    /// Keeps a new distinct `event`, dropping the oldest beyond the retention with what was
    /// noted about it.
    mutating func keep(_ event: Event, violations: [TrackingPlanViolation], retention: Collector.Retention) {
        received += 1
        events.append(event)
        if !violations.isEmpty {
            violatingEvents += 1
            planViolations[event.id] = violations
        }
        if let limit = retention.events, events.count > limit {
            let dropped = events.removeFirst()
            planViolations[dropped.id] = nil
        }
    }
}
#endif
