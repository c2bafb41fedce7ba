#if Tools
import Foundation
import Testing
import TelemetryKit
import TelemetryKitCollector
import TelemetryKitHTTP
import TelemetryKitHTTPTestSupport
import TelemetryKitSupport
import TelemetryKitTesting

#if canImport(Glibc)
import Glibc
#endif

/// `telemetrykit collect` as a developer runs it: a process that prints what arrives, stops on
/// Ctrl-C with a summary, and stays small however long it runs.
@Suite struct CollectCommandTests {
    private let connection = URLSessionHTTPConnection()

    private func post(_ body: [UInt8], port: Int, contentType: String = "application/json") async throws -> Int {
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/v2/namespace/ns/"))
        let request = HTTPRequest(
            url: url,
            headers: [HTTPHeader("Content-Type", contentType)],
            body: Data(body),
            timeout: 60
        )
        return try await connection.send(request).statusCode
    }

    private func event(_ type: String, payload: [String: PayloadValue] = ["screen": "home"]) -> Event {
        Event(
            appID: "APP",
            type: type,
            clientUser: "user",
            receivedAt: Date(timeIntervalSince1970: 1_795_462_423),
            payload: payload
        )
    }

    @Test func ctrlCPrintsASummaryAndEachRejectionIsALineWithItsReason() async throws {
        let collect = try CLI.Background(["collect", "--port", "0"])
        let port = try await collect.collectorPort()

        let accepted = try await post(
            EventWireEncoder.encode([event("Checkout.completed"), event("App.launched"), event("Checkout.completed")]),
            port: port
        )
        let valid = String(decoding: EventWireEncoder.encode([event("Checkout.completed")]), as: UTF8.self)
        let broken = valid.replacingOccurrences(of: #""isTestMode":"false""#, with: #""isTestMode":false"#)
        let refused = try await post(Array(broken.utf8), port: port)
        let wrongType = try await post(
            EventWireEncoder.encode([event("App.launched")]),
            port: port,
            contentType: "text/plain"
        )
        try await collect.waitForOutput(containing: "✗ Rejected with 415")
        collect.send(SIGINT)
        let run = try await collect.finish()

        #expect(accepted == 200)
        #expect(refused == 400)
        #expect(wrongType == 415)
        #expect(run.status == 0, "stderr: \(run.errors)")
        #expect(
            run.output.contains(
                #"✗ Rejected with 400 (/v2/namespace/ns/): Malformed body: at byte "#
                    + #"\#(broken.utf8.count - "false}]".utf8.count): event 0: member 'isTestMode' must be the string "true" or "false", "#
                    + "not a JSON boolean\n"
            )
        )
        #expect(
            run.output.contains(
                "✗ Rejected with 415 (/v2/namespace/ns/): Content-Type must be application/json, not text/plain.\n"
            )
        )
        #expect(
            run.output.hasSuffix(
                """
                Received 3 event(s), 0 duplicate(s), 2 rejected request(s) of 3.
                  2 × Checkout.completed
                  1 × App.launched

                """
            )
        )
    }

    @Test func aPortInUseIsSaidInASentenceWithoutTheUsage() async throws {
        let holder = try await Collector.start()
        let run = try await CLI.run(["collect", "--port", "\(holder.port)", "--duration", "5"])
        await holder.shutdown()

        #expect(run.status == 1)
        #expect(
            run.errors
                == "Error: Port \(holder.port) on 127.0.0.1 is already in use by another process. Stop that process, "
                + "or pass --port with another number (--port 0 picks a free one).\n"
        )
        #expect(run.output.isEmpty)
    }

    /// 100,000 events with SDK-sized payloads through the command's collector, which keeps
    /// the latest 5,000 and counts the rest: the process's resident memory stays under 100 MB.
    @Test func residentMemoryStaysBoundedAfterAHundredThousandEvents() async throws {
        let collect = try CLI.Background(["collect", "--port", "0"])
        let port = try await collect.collectorPort()
        var payload: [String: PayloadValue] = ["screen": "checkout", "items": 3, "coupon": "SPRING"]
        for index in 0..<30 {
            payload["TelemetryDeck.Parameter.number\(index)"] = .string("value \(index) of the SDK's parameters")
        }
        let body = EventWireEncoder.encode((0..<1_000).map { _ in event("Checkout.completed", payload: payload) })
        var statuses: [Int: Int] = [:]
        for _ in 0..<100 {
            statuses[try await post(body, port: port), default: 0] += 1
        }
        let resident = try collect.residentBytes()
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/events?limit=2"))
        let page = try await connection.send(HTTPRequest(url: url, method: "GET", timeout: 60))
        collect.send(SIGINT)
        let run = try await collect.finish()

        #expect(statuses == [200: 100])
        #expect(resident < 100 << 20, "resident after 100,000 events: \(resident >> 20) MB")
        struct Document: Decodable {
            var received: Int
            var first: Int
            var next: Int
            var events: [Event]
        }
        let document = try JSONDecoder().decode(Document.self, from: page.body)
        #expect(document.received == 100_000)
        #expect(document.first == 95_001)
        #expect(document.next == 100_000)
        #expect(document.events.count == 2)
        #expect(run.output.contains("Received 100000 event(s), 0 duplicate(s), 0 rejected request(s) of 100.\n"))
        #expect(run.output.hasSuffix("  100000 × Checkout.completed\n"))
    }
}

/// The CLI's failures are sentences with conventional exit codes, without a raw error dump.
@Suite struct CLIMessageTests {
    @Test func anEndpointThatIsNoURLIsRefusedAndNotSaved() async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        let run = try await CLI.run(["send", "Ping", "--endpoint", "notaurl", "--directory", home.url.path])

        #expect(run.status == 64)
        #expect(
            run.errors.hasPrefix(
                "Error: --endpoint 'notaurl' is not an http:// or https:// URL with a host; "
                    + "give one like https://nom.telemetrydeck.com or http://127.0.0.1:8080.\n"
            )
        )
        #expect(!FileManager.default.fileExists(atPath: home.file("settings.json").path))
    }

    @Test(arguments: [["send", "Ping"], ["flush"], ["status"]])
    func aDirectoryThatIsAFileIsSaidInASentence(command: [String]) async throws {
        let scratch = try TemporaryDirectory()
        defer { scratch.remove() }
        let file = scratch.file("queue-file")
        try Data("not a directory".utf8).write(to: file)

        let run = try await CLI.run(command + ["--directory", file.path])
        let nested = try await CLI.run(command + ["--directory", file.path + "/inner"])

        let advice = "Pass --directory (or set TELEMETRYKIT_HOME) to a directory you can write to.\n"
        #expect(run.status == 1)
        #expect(run.errors == "Error: \(file.path) is a file, not a directory. \(advice)")
        #expect(nested.status == 1)
        #expect(
            nested.errors
                == "Error: \(file.path) is a file, not a directory, so \(file.path)/inner cannot be one. \(advice)"
        )
    }

    /// A queue on a full disk: the database file is /dev/full, where every write fails with
    /// ENOSPC. `status` must not report an empty queue.
    @Test func statusOnAFullDiskSaysTheCountIsUnknownAndFails() async throws {
        let home = try TemporaryDirectory()
        defer { home.remove() }
        try FileManager.default.createDirectory(at: home.file("queue"), withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(
            atPath: home.file("queue/events.sqlite").path,
            withDestinationPath: "/dev/full"
        )
        let run = try await CLI.run(["status", "--directory", home.url.path])

        #expect(run.status == 1)
        #expect(run.errors.hasPrefix("Error: Cannot "))
        #expect(run.errors.contains(home.file("queue").path))
        #expect(!run.output.contains("Queued:"))
    }
}
#endif
