// telemetrykit-crashtester: sends numbered events through a TelemetryClient with a durable
// cache until it is killed. The durability tests start it, SIGKILL it at random moments,
// restart it, and check that every acknowledged event survived.
//
//   telemetrykit-crashtester --cache sqlite|jsonlines --file PATH [--first N] [--count M]
//                            [--transmitter never|stdout|http] [--url BASE]
//
// Several may share one file (the multi-process tests). `--count 0` only sends what is
// queued. `--transmitter http` posts to the collector at BASE (namespace "crashtester",
// events with their ids) with a short backoff.
//
// Standard output, one line per fact, each written with a single write(2) (atomic on a pipe):
//   ready                     the client has started
//   ack N                     `send` of event number N returned: N is in the cache
//   delivered N:UUID N:UUID   (--transmitter stdout) a batch the transmitter accepted
//   sending N:UUID N:UUID     (--transmitter http) a batch about to be posted
//   outcome WORD              (--transmitter http) how that post ended: delivered, retry, …
//   done                      --count events were sent; the process then waits to be killed

import TelemetryKit
import TelemetryKitClient
import TelemetryKitHTTP
import TelemetryKitInMemoryStorage
import TelemetryKitJSONLinesCache
import TelemetryKitSQLiteCache

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// The parameter that carries an event's number.
let numberKey = "number"

/// Writes one line to standard output with one unbuffered write.
func emit(_ line: String) {
    let bytes = Array((line + "\n").utf8)
    bytes.withUnsafeBytes { raw in
        guard let base = raw.baseAddress else { return }
        var written = 0
        while written < raw.count {
            let result = write(STDOUT_FILENO, base + written, raw.count - written)
            if result < 0 {
                if errno == EINTR { continue }
                return
            }
            written += result
        }
    }
}

func fail(_ message: String) -> Never {
    StandardErrorLogger().error("crashtester: \(message)")
    exit(2)
}

/// Never accepts a batch: events stay in the cache.
struct NeverSucceedingTransmitter: EventTransmitting {
    func transmit(_ batch: [Event]) async -> TransmissionOutcome {
        .retry(after: 3600)
    }
}

/// Accepts every batch and reports it on standard output before saying so.
struct StandardOutputTransmitter: EventTransmitting {
    func transmit(_ batch: [Event]) async -> TransmissionOutcome {
        emit("delivered " + batch.map(numberedID).joined(separator: " "))
        return .delivered
    }
}

/// Posts through the HTTP transmitter and reports each batch before and after, so that a
/// test knows which batch was in flight when it killed the process.
struct ReportingHTTPTransmitter: EventTransmitting {
    let transmitter: HTTPEventTransmitter

    func transmit(_ batch: [Event]) async -> TransmissionOutcome {
        emit("sending " + batch.map(numberedID).joined(separator: " "))
        let outcome = await transmitter.transmit(batch)
        switch outcome {
        case .delivered: emit("outcome delivered")
        case .rejected: emit("outcome rejected")
        case .payloadTooLarge: emit("outcome payloadTooLarge")
        case .retry: emit("outcome retry")
        }
        return outcome
    }
}

/// `N:UUID` for a numbered event.
func numberedID(_ event: Event) -> String {
    "\(event.payloadValue(forKey: numberKey)?.stringValue ?? "?"):\(event.id.uuidString)"
}

struct Options {
    var cache = ""
    var file = ""
    var first = 1
    var count: Int?
    var transmitter = "never"
    var url = ""

    init(arguments: [String]) {
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            guard let value = iterator.next() else { fail("missing value for \(argument)") }
            switch argument {
            case "--cache": cache = value
            case "--file": file = value
            case "--first":
                guard let number = Int(value) else { fail("--first needs a number, got \(value)") }
                first = number
            case "--count":
                guard let number = Int(value) else { fail("--count needs a number, got \(value)") }
                count = number
            case "--transmitter": transmitter = value
            case "--url": url = value
            default: fail("unknown option \(argument)")
            }
        }
        if file.isEmpty { fail("--file is required") }
    }
}

let options = Options(arguments: Array(CommandLine.arguments.dropFirst()))
let fileURL = URL(fileURLWithPath: options.file)
let logger = StandardErrorLogger(minimumLevel: .warning)

// Limits far above what a test sends, so that nothing is evicted: an awaited send into SQLite
// takes microseconds, and a run of the kill test sends over 100,000 events, more than the
// default byte limit holds.
let cache: any EventCaching
do {
    switch options.cache {
    case "sqlite":
        cache = try SQLiteEventCache(fileURL: fileURL, limit: 10_000_000, maxBytes: 1 << 40, logger: logger)
    case "jsonlines": cache = try JSONLinesEventCache(fileURL: fileURL, limit: 1_000_000, logger: logger)
    default: fail("--cache must be sqlite or jsonlines, got \(options.cache)")
    }
} catch {
    fail("cannot open the cache: \(error)")
}

let destination: Destination
switch options.transmitter {
case "never":
    destination = Destination(
        id: "durable",
        transmitter: NeverSucceedingTransmitter(),
        cache: cache,
        policy: DeliveryPolicy(flushInterval: 3600)
    )
case "stdout":
    destination = Destination(
        id: "durable",
        transmitter: StandardOutputTransmitter(),
        cache: cache,
        policy: DeliveryPolicy(flushInterval: 0.02, maxBatchCount: 20, sendThreshold: 20)
    )
case "http":
    let transmitter: HTTPEventTransmitter
    do {
        transmitter = try HTTPEventTransmitter(
            configuration: HTTPEventTransmitter.Configuration(
                apiBaseURL: options.url,
                namespace: "crashtester",
                timeout: 10,
                wireFormat: .telemetryDeckWithEventIDs
            ),
            logger: logger
        )
    } catch {
        fail("--url \(options.url): \(error)")
    }
    destination = Destination(
        id: "durable",
        transmitter: ReportingHTTPTransmitter(transmitter: transmitter),
        cache: cache,
        policy: DeliveryPolicy(
            flushInterval: 0.02,
            maxBatchCount: 20,
            sendThreshold: 20,
            backoff: BackoffPolicy(initial: 0.02, multiplier: 2, maximum: 0.2)
        )
    )
default:
    fail("--transmitter must be never, stdout or http, got \(options.transmitter)")
}

let client = TelemetryClient(
    configuration: TelemetryClient.Configuration(appID: "CRASH-TESTER"),
    destinations: [destination],
    storage: InMemoryProcessorStorage(),
    logger: logger
)
await client.start()
emit("ready")

var number = options.first
while options.count.map({ number < options.first + $0 }) ?? true {
    await client.send(EventInput("CrashTester.numbered", parameters: [numberKey: number]))
    emit("ack \(number)")
    number += 1
}
emit("done")
while true {
    try? await Task.sleep(nanoseconds: 3_600_000_000_000)
}
