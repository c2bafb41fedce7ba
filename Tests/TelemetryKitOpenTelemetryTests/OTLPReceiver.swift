#if OpenTelemetry
import TelemetryKitHTTP

#if canImport(Dispatch)
import Dispatch
#endif
import Foundation

/// The Python receiver in TestSupport/OTLPReceiver/otlp_receiver.py, on 127.0.0.1 for one test:
/// it decodes every export with the OpenTelemetry project's generated classes (PyPI
/// `opentelemetry-proto`) and refuses unknown fields and malformed encodings.
final class OTLPReceiver: Sendable {
    /// What arrived, as the receiver normalised it.
    struct State: Decodable {
        /// Exports received, whatever was answered.
        var exports: Int
        /// Records of the exports answered 2xx (a partial success included).
        var records: [Record]
        /// Why bodies were refused; empty when every body decoded strictly.
        var errors: [String]
        /// The scripted faults served, in order.
        var served: [String]
    }

    struct Record: Decodable {
        var eventName: String
        var timeUnixNano: UInt64
        var observedTimeUnixNano: UInt64
        var severityNumber: Int
        var severityText: String
        /// Lowercase hex; empty when the record has none.
        var traceId: String
        var spanId: String
        var flags: UInt32
        /// Key → [type ("string", "int", "double", "bool"), value as text].
        var attributes: [String: [String]]
        var resource: [String: String]
        /// [name, version]
        var scope: [String]
        var encoding: String
        var gzip: Bool
    }

    struct ReceiverError: Error, CustomStringConvertible {
        var description: String
    }

    let endpoint: URL
    private let process: Process
    private let input: Pipe
    private let connection = URLSessionHTTPConnection()

    private init(endpoint: URL, process: Process, input: Pipe) {
        self.endpoint = endpoint
        self.process = process
        self.input = input
    }

    deinit {
        try? input.fileHandleForWriting.close()
    }

    /// Starts a receiver and waits until it listens.
    static func start(filePath: String = #filePath) async throws -> OTLPReceiver {
        let script = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("TestSupport/OTLPReceiver/otlp_receiver.py")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, "--lifetime", "300"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let reader = output.fileHandleForReading
        let line = await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            DispatchQueue.global().async {
                var data = Data()
                while !data.contains(UInt8(ascii: "\n")) {
                    let chunk = reader.availableData
                    if chunk.isEmpty { break }
                    data.append(chunk)
                }
                continuation.resume(returning: String(decoding: data, as: UTF8.self))
            }
        }
        let fields = line.split(whereSeparator: \.isWhitespace)
        guard fields.count == 2, fields[0] == "PORT", let port = Int(fields[1]) else {
            try? input.fileHandleForWriting.close()
            throw ReceiverError(
                description: "the OTLP receiver did not start (\(line.debugDescription)); it needs python3 with "
                    + "`opentelemetry-proto` (scripts/install-system-packages.sh installs it)"
            )
        }
        return OTLPReceiver(endpoint: URL(string: "http://127.0.0.1:\(port)")!, process: process, input: input)
    }

    /// Scripts the answers to the next exports, one fault per export, in order.
    func inject(_ faults: [String]) async throws {
        let body = try JSONEncoder().encode(faults)
        let response = try await connection.send(
            HTTPRequest(
                url: endpoint.appendingPathComponent("control/faults"),
                headers: [HTTPHeader("Content-Type", "application/json")],
                body: body,
                timeout: 10
            )
        )
        guard response.statusCode == 204 else { throw ReceiverError(description: "faults: \(response.statusCode)") }
    }

    /// What arrived so far.
    func state() async throws -> State {
        let response = try await connection.send(
            HTTPRequest(url: endpoint.appendingPathComponent("control/state"), method: "GET", timeout: 10)
        )
        return try JSONDecoder().decode(State.self, from: response.body)
    }
}
#endif
