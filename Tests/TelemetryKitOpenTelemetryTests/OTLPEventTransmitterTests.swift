#if OpenTelemetry
import Foundation
import TelemetryKit
import TelemetryKitHTTP
import TelemetryKitOpenTelemetry
import TelemetryKitTesting
import Testing

@Suite("OTLPEventTransmitter against the OpenTelemetry project's decoder")
struct OTLPEventTransmitterTests {
    static let receivedAt = Date(timeIntervalSince1970: 1_795_000_000.123)
    static let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
    static let spanID = "00f067aa0ba902b7"

    static func configuration(
        _ endpoint: URL,
        encoding: OTLPLogsEncoder.Encoding = .protobuf,
        compression: HTTPEventTransmitter.Compression = .none,
        timeout: TimeInterval = 10
    ) -> OTLPEventTransmitter.Configuration {
        OTLPEventTransmitter.Configuration(
            endpoint: endpoint,
            serviceName: "checkout",
            serviceVersion: "1.4.0",
            serviceInstanceID: "instance-1",
            hostName: "host-a",
            resourceAttributes: ["deployment.environment.name": "test"],
            encoding: encoding,
            compression: compression,
            timeout: timeout
        )
    }

    static let expectedResource: [String: String] = [
        "service.name": "checkout",
        "service.version": "1.4.0",
        "service.instance.id": "instance-1",
        "host.name": "host-a",
        "os.type": "linux",
        "telemetry.sdk.name": "TelemetryKit",
        "telemetry.sdk.version": SDKInfo.version,
        "telemetry.sdk.language": "swift",
        "deployment.environment.name": "test",
    ]

    /// One event with every payload type, edge values, and a trace; one without any of it.
    static func events() -> [Event] {
        [
            Event(
                id: UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!,
                appID: "APP",
                type: "Checkout.completed",
                clientUser: "5f1a",
                sessionID: "S-1",
                receivedAt: receivedAt,
                payload: [
                    "screen": .string("home \"quoted\"\n\u{1}é"),
                    "items": .int(3),
                    "refund": .int(-42),
                    "zero": .int(0),
                    "empty": .string(""),
                    "ratio": .double(0.25),
                    "premium": .bool(true),
                    "trial": .bool(false),
                    TraceContextProcessor.traceIDKey: .string(traceID),
                    TraceContextProcessor.spanIDKey: .string(spanID),
                    TraceContextProcessor.traceFlagsKey: .int(1),
                ],
                floatValue: 9.99,
                isTestMode: true
            ),
            Event(
                id: UUID(uuidString: "0B2B4C34-77B1-4F4A-9A34-6F0C1F3C2B10")!,
                appID: "APP",
                type: "Screen.shown",
                clientUser: "77aa",
                receivedAt: receivedAt.addingTimeInterval(1),
                payload: ["screen": .string("settings")]
            ),
        ]
    }

    @Test(
        "every event arrives as a LogRecord with its fields, typed attributes, trace and the resource",
        arguments: [OTLPLogsEncoder.Encoding.protobuf, .json],
        [HTTPEventTransmitter.Compression.none, .gzip]
    )
    func roundTrip(encoding: OTLPLogsEncoder.Encoding, compression: HTTPEventTransmitter.Compression) async throws {
        let receiver = try await OTLPReceiver.start()
        let transmitter = try OTLPEventTransmitter(
            configuration: Self.configuration(receiver.endpoint, encoding: encoding, compression: compression),
            logger: SilentLogger()
        )
        #expect(await transmitter.transmit(Self.events()) == .delivered)

        let state = try await receiver.state()
        #expect(state.errors == [])
        #expect(state.exports == 1)
        try #require(state.records.count == 2)
        let traced = state.records[0]
        let expectedEncoding = encoding == .protobuf ? "protobuf" : "json"
        #expect(traced.encoding == expectedEncoding)
        #expect(traced.gzip == (compression == .gzip))
        #expect(traced.eventName == "Checkout.completed")
        #expect(traced.timeUnixNano == 1_795_000_000_123_000_000)
        #expect(traced.observedTimeUnixNano == 1_795_000_000_123_000_000)
        #expect(traced.severityNumber == 9)
        #expect(traced.severityText == "INFO")
        #expect(traced.traceId == Self.traceID)
        #expect(traced.spanId == Self.spanID)
        #expect(traced.flags == 1)
        #expect(traced.resource == Self.expectedResource)
        #expect(traced.scope == ["TelemetryKit", SDKInfo.version])
        #expect(
            traced.attributes == [
                "log.record.uid": ["string", "e621e1f8-c36c-495a-93fc-0c247a3e6e5f"],
                "telemetrykit.app_id": ["string", "APP"],
                "user.hash": ["string", "5f1a"],
                "session.id": ["string", "S-1"],
                "telemetrykit.float_value": ["double", "9.99"],
                "telemetrykit.test_mode": ["bool", "true"],
                "screen": ["string", "home \"quoted\"\n\u{1}é"],
                "items": ["int", "3"],
                "refund": ["int", "-42"],
                "zero": ["int", "0"],
                "empty": ["string", ""],
                "ratio": ["double", "0.25"],
                "premium": ["bool", "true"],
                "trial": ["bool", "false"],
            ]
        )

        let untraced = state.records[1]
        #expect(untraced.eventName == "Screen.shown")
        #expect(untraced.timeUnixNano == 1_795_000_001_123_000_000)
        #expect(untraced.traceId == "")
        #expect(untraced.spanId == "")
        #expect(untraced.flags == 0)
        #expect(
            untraced.attributes == [
                "log.record.uid": ["string", "0b2b4c34-77b1-4f4a-9a34-6f0c1f3c2b10"],
                "telemetrykit.app_id": ["string", "APP"],
                "user.hash": ["string", "77aa"],
                "telemetrykit.test_mode": ["bool", "false"],
                "screen": ["string", "settings"],
            ]
        )
    }

    @Test(
        "the processors' shared metadata layer, encoded once per batch, is right for every event",
        arguments: [OTLPLogsEncoder.Encoding.protobuf, .json]
    )
    func sharedMetadataLayer(encoding: OTLPLogsEncoder.Encoding) async throws {
        let receiver = try await OTLPReceiver.start()
        let transmitter = try OTLPEventTransmitter(
            configuration: Self.configuration(receiver.endpoint, encoding: encoding),
            logger: SilentLogger()
        )
        let metadata: [String: PayloadValue] = [
            "Device.kind": .string("server"),
            "Device.cores": .int(2),
            "session.id": .string("not the event's"),
        ]
        var tracedMetadata = metadata
        tracedMetadata[TraceContextProcessor.traceIDKey] = .string(Self.traceID)
        tracedMetadata[TraceContextProcessor.spanIDKey] = .string(Self.spanID)
        tracedMetadata[TraceContextProcessor.traceFlagsKey] = .int(1)
        func event(_ number: Int, _ shared: [String: PayloadValue], _ own: [String: PayloadValue]) -> Event {
            Event(
                appID: "APP",
                type: "Step.\(number)",
                clientUser: "u",
                sessionID: "S",
                receivedAt: Self.receivedAt,
                sharedPayload: shared,
                ownPayload: own
            )
        }
        let events = [
            event(1, metadata, ["n": .int(1)]),
            event(2, metadata, ["n": .int(2)]),  // the same layer again
            event(3, metadata, ["Device.kind": .string("laptop")]),  // shadows a shared key
            event(4, tracedMetadata, ["n": .int(4)]),
            event(5, tracedMetadata, ["n": .int(5)]),
            event(6, metadata, ["n": .int(6)]),  // back to the first layer
        ]
        #expect(await transmitter.transmit(events) == .delivered)
        let state = try await receiver.state()
        #expect(state.errors == [])  // the receiver refuses duplicate attribute keys too
        try #require(state.records.count == 6)
        for (index, record) in state.records.enumerated() {
            var attributes = record.attributes
            attributes["log.record.uid"] = nil
            var expected: [String: [String]] = [
                "telemetrykit.app_id": ["string", "APP"],
                "user.hash": ["string", "u"],
                "session.id": ["string", "S"],
                "telemetrykit.test_mode": ["bool", "false"],
                "Device.kind": ["string", index == 2 ? "laptop" : "server"],
                "Device.cores": ["int", "2"],
            ]
            if index != 2 { expected["n"] = ["int", String(index + 1)] }
            #expect(record.eventName == "Step.\(index + 1)")
            #expect(attributes == expected)
            let traced = index == 3 || index == 4
            #expect(record.traceId == (traced ? Self.traceID : ""))
            #expect(record.spanId == (traced ? Self.spanID : ""))
        }
    }

    @Test("trace keys that are not valid ids stay attributes, and the record has no trace")
    func invalidTraceStaysAttributes() async throws {
        let receiver = try await OTLPReceiver.start()
        let transmitter = try OTLPEventTransmitter(configuration: Self.configuration(receiver.endpoint))
        let event = Event(
            appID: "APP",
            type: "Order.placed",
            clientUser: "u",
            receivedAt: Self.receivedAt,
            payload: [
                TraceContextProcessor.traceIDKey: .string("not-a-trace"),
                TraceContextProcessor.spanIDKey: .string(Self.spanID),
            ]
        )
        #expect(await transmitter.transmit([event]) == .delivered)
        let record = try #require(try await receiver.state().records.first)
        #expect(record.traceId == "")
        #expect(record.attributes["trace_id"] == ["string", "not-a-trace"])
        #expect(record.attributes["span_id"] == ["string", Self.spanID])
    }

    @Test(
        "answers map to outcomes as OTLP says, and refused exports keep nothing",
        arguments: [
            ("status:503", TransmissionOutcome.retry(after: nil)),
            ("status:502", .retry(after: nil)),
            ("status:504:retry-after:3", .retry(after: 3)),
            ("status:429:retry-after:2", .retry(after: 2)),
            ("status:429", .retry(after: nil)),
            ("status:413", .payloadTooLarge),
            ("status:400", .rejected(RejectionReason("injected 400", statusCode: 400))),
            ("status:401", .rejected(RejectionReason("injected 401", statusCode: 401))),
            ("status:500", .rejected(RejectionReason("injected 500", statusCode: 500))),
            ("reset", .retry(after: nil)),
        ]
    )
    func faults(fault: String, expected: TransmissionOutcome) async throws {
        let receiver = try await OTLPReceiver.start()
        try await receiver.inject([fault])
        let transmitter = try OTLPEventTransmitter(
            configuration: Self.configuration(receiver.endpoint),
            logger: SilentLogger()
        )
        #expect(await transmitter.transmit(Self.events()) == expected)
        let state = try await receiver.state()
        #expect(state.errors == [])
        #expect(state.served == [fault])
        #expect(state.records.isEmpty)
    }

    @Test("an answer that never comes within the timeout is retried")
    func timeout() async throws {
        let receiver = try await OTLPReceiver.start()
        try await receiver.inject(["stall:4"])
        let transmitter = try OTLPEventTransmitter(
            configuration: Self.configuration(receiver.endpoint, timeout: 1),
            logger: SilentLogger()
        )
        #expect(await transmitter.transmit(Self.events()) == .retry(after: nil))
    }

    @Test(
        "a partial success is delivered, counted, and logged once",
        arguments: [OTLPLogsEncoder.Encoding.protobuf, .json]
    )
    func partialSuccess(encoding: OTLPLogsEncoder.Encoding) async throws {
        let receiver = try await OTLPReceiver.start()
        try await receiver.inject(["partial:1:attribute value too long"])
        let logger = RecordingLogger()
        let transmitter = try OTLPEventTransmitter(
            configuration: Self.configuration(receiver.endpoint, encoding: encoding),
            logger: logger
        )
        #expect(await transmitter.transmit(Self.events()) == .delivered)
        #expect(await transmitter.transmit(Self.events()) == .delivered)  // a full success after it
        var expected = OTLPPartialSuccesses()
        expected.responses = 1
        expected.rejectedLogRecords = 1
        expected.lastErrorMessage = "attribute value too long"
        #expect(transmitter.partialSuccesses == expected)
        #expect(
            logger.entries.map(\.message) == [
                "The OTLP receiver refused 1 of 2 log records: attribute value too long"
            ]
        )
        #expect(try await receiver.state().records.count == 4)
    }

    @Test("the logs URL keeps the endpoint's path; bad endpoints and service names are refused")
    func endpoints() throws {
        let transmitter = try OTLPEventTransmitter(
            endpoint: URL(string: "https://collector.example:4318/otlp/")!,
            serviceName: "checkout"
        )
        #expect(transmitter.logsURL.absoluteString == "https://collector.example:4318/otlp/v1/logs")
        let plain = try OTLPEventTransmitter(endpoint: URL(string: "http://otel-collector:4318")!, serviceName: "s")
        #expect(plain.logsURL.absoluteString == "http://otel-collector:4318/v1/logs")
        #expect(throws: OTLPConfigurationError.unsupportedScheme("ftp")) {
            try OTLPEventTransmitter(endpoint: URL(string: "ftp://collector:4318")!, serviceName: "s")
        }
        #expect(throws: OTLPConfigurationError.blankServiceName) {
            try OTLPEventTransmitter(endpoint: URL(string: "http://collector:4318")!, serviceName: "  ")
        }
        #expect(
            throws: OTLPConfigurationError.malformedEndpoint(
                "http://collector:4318?x=1",
                reason: "it must not have a query or a fragment"
            )
        ) {
            try OTLPEventTransmitter(endpoint: URL(string: "http://collector:4318?x=1")!, serviceName: "s")
        }
    }

    @Test("requests carry the encoding's content type, gzip when asked, and the configured headers")
    func requests() throws {
        var configuration = Self.configuration(URL(string: "http://127.0.0.1:4318")!, encoding: .json)
        configuration.compression = .gzip
        configuration.headers = ["Authorization": "Bearer t0ken"]
        let transmitter = try OTLPEventTransmitter(configuration: configuration)
        let request = transmitter.makeRequest(for: Self.events())
        #expect(request.value(forHeader: "Content-Type") == "application/json")
        #expect(request.value(forHeader: "Content-Encoding") == "gzip")
        #expect(request.value(forHeader: "Authorization") == "Bearer t0ken")
        #expect(request.timeout == 10)
        #expect(Array(request.body.prefix(2)) == [0x1F, 0x8B])
        let protobuf = try OTLPEventTransmitter(configuration: Self.configuration(configuration.endpoint))
        let plain = protobuf.makeRequest(for: Self.events())
        #expect(plain.value(forHeader: "Content-Type") == "application/x-protobuf")
        #expect(plain.value(forHeader: "Content-Encoding") == nil)
        #expect(plain.body.first == 0x0A)  // field 1 (resource_logs), length-delimited
    }
}
#endif
