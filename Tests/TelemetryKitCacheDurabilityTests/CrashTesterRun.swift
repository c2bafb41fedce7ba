import Foundation
import TelemetryKit
import TelemetryKitSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One run of the `telemetrykit-crashtester` executable, with its standard output parsed.
final class CrashTesterRun {
    /// What the child reported so far.
    struct Output: Sendable {
        var ready = false
        var done = false
        var finished = false
        var acknowledged: [Int] = []
        /// Batches the child's transmitter accepted, in order: (number, event id) per event.
        var deliveredBatches: [[(number: Int, id: UUID)]] = []
        /// Batches the child began to post (`--transmitter http`), in order.
        var sendingBatches: [[(number: Int, id: UUID)]] = []
        /// How each post ended, in order: one per finished entry of `sendingBatches`.
        var outcomes: [String] = []
        var unparsedLines: [String] = []
    }

    private let process: Process
    private let pipe: Pipe
    private let output = Locked(Output())

    /// Starts the executable at `executable` with `arguments`.
    init(executable: URL, arguments: [String]) throws {
        process = Process()
        process.executableURL = executable
        process.arguments = arguments
        pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        // Read on a thread of its own: a blocking read must not occupy the test's executor.
        let descriptor = pipe.fileHandleForReading.fileDescriptor
        let output = self.output
        Thread.detachNewThread {
            var pending: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                if count <= 0 { break }
                pending.append(contentsOf: buffer[0..<count])
                while let newline = pending.firstIndex(of: 0x0A) {
                    let line = String(decoding: pending[..<newline], as: UTF8.self)
                    pending.removeSubrange(...newline)
                    output.withLock { Self.parse(line, into: &$0) }
                }
            }
            output.withLock { $0.finished = true }
        }
    }

    static func parse(_ line: String, into output: inout Output) {
        let parts = line.split(separator: " ")
        switch parts.first {
        case "ready":
            output.ready = true
        case "done":
            output.done = true
        case "ack":
            if parts.count == 2, let number = Int(parts[1]) {
                output.acknowledged.append(number)
            } else {
                output.unparsedLines.append(line)
            }
        case "delivered", "sending":
            var batch: [(number: Int, id: UUID)] = []
            for item in parts.dropFirst() {
                let fields = item.split(separator: ":")
                guard fields.count == 2, let number = Int(fields[0]), let id = UUID(uuidString: String(fields[1]))
                else {
                    output.unparsedLines.append(line)
                    return
                }
                batch.append((number, id))
            }
            if parts.first == "delivered" {
                output.deliveredBatches.append(batch)
            } else {
                output.sendingBatches.append(batch)
            }
        case "outcome" where parts.count == 2:
            output.outcomes.append(String(parts[1]))
        default:
            output.unparsedLines.append(line)
        }
    }

    var snapshot: Output { output.withLock { $0 } }

    /// Waits (polling) until `condition` holds for the output, the child exits, or `timeout`
    /// seconds pass; returns whether the condition holds.
    func wait(timeout: TimeInterval = 120, until condition: (Output) -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            let current = snapshot
            if condition(current) { return true }
            if current.finished { return false }
            try await Task.sleep(nanoseconds: 2_000_000)
        }
        return condition(snapshot)
    }

    /// SIGKILLs the child and waits until it is gone and its output is read to the end.
    func kill() async throws {
        if process.isRunning {
            sendSIGKILL(process.processIdentifier)
        }
        // Polled, not `waitUntilExit()`: that blocks one of the cooperative pool's threads.
        _ = try await waitForExit()
        _ = try await wait(timeout: 30) { $0.finished }
    }

    /// Waits until the child exits by itself; returns its exit status.
    func waitForExit() async throws -> Int32 {
        while process.isRunning {
            try await Task.sleep(nanoseconds: 5_000_000)
        }
        return process.terminationStatus
    }

    var terminationReason: String {
        process.isRunning
            ? "running" : "status \(process.terminationStatus), reason \(process.terminationReason.rawValue)"
    }
}

private func sendSIGKILL(_ processIdentifier: Int32) {
    _ = kill(processIdentifier, SIGKILL)
}
