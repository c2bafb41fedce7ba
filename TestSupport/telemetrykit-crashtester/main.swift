// telemetrykit-crashtester: sends numbered events through a TelemetryClient with a durable
// cache until it is killed. The durability tests start it, SIGKILL it at random moments,
// restart it, and check that every acknowledged event survived.
//
//   telemetrykit-crashtester --cache sqlite|jsonlines --file PATH [--first N] [--count M]
//                            [--transmitter never|stdout]
//
// Standard output, one line per fact, each written with a single write(2) (atomic on a pipe):
//   ready                     the client has started
//   ack N                     `send` of event number N returned: N is in the cache
//   delivered N:UUID N:UUID   (--transmitter stdout) a batch the transmitter accepted
//   done                      --count events were sent; the process then waits to be killed

import TelemetryKit
import TelemetryKitClient
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
        let items = batch.map { event -> String in
            let number = event.payloadValue(forKey: numberKey)?.stringValue ?? "?"
            return "\(number):\(event.id.uuidString)"
        }
        emit("delivered " + items.joined(separator: " "))
        return .delivered
    }
}

struct Options {
    var cache = ""
    var file = ""
    var first = 1
    var count: Int?
    var transmitter = "never"

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
            default: fail("unknown option \(argument)")
            }
        }
        if file.isEmpty { fail("--file is required") }
    }
}

let options = Options(arguments: Array(CommandLine.arguments.dropFirst()))
let fileURL = URL(fileURLWithPath: options.file)
let logger = StandardErrorLogger(minimumLevel: .warning)

let cache: any EventCaching
do {
    switch options.cache {
    case "sqlite": cache = try SQLiteEventCache(fileURL: fileURL, limit: 1_000_000, logger: logger)
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
default:
    fail("--transmitter must be never or stdout, got \(options.transmitter)")
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
