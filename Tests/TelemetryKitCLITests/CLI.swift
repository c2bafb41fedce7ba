#if Tools
import Foundation
import TelemetryKitTesting

#if canImport(Glibc)
import Glibc
#endif

/// The built `telemetrykit` executable, run as a subprocess.
enum CLI {
    struct Run {
        var status: Int32
        var output: String
        var errors: String
    }

    /// The executable next to the test bundle in the build folder.
    static func executable() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["TELEMETRYKIT_CLI_PATH"] {
            return URL(fileURLWithPath: path)
        }
        let testBinary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = testBinary.deletingLastPathComponent()
        // On macOS the test binary sits inside a .xctest bundle.
        while directory.pathExtension == "xctest" || directory.lastPathComponent == "MacOS"
            || directory.lastPathComponent == "Contents"
        {
            directory.deleteLastPathComponent()
        }
        let candidate = directory.appendingPathComponent("telemetrykit")
        guard FileManager.default.isExecutableFile(atPath: candidate.path) else {
            throw CLITestError("telemetrykit not found at \(candidate.path); build it with --traits Tools")
        }
        return candidate
    }

    /// Runs `telemetrykit arguments…` to completion.
    static func run(_ arguments: [String]) async throws -> Run {
        let command = try Background(arguments)
        return try await command.finish()
    }

    /// A `telemetrykit` process (or `executable`'s) running beside the test, its output
    /// captured through files (pipes could fill up and block the child).
    final class Background {
        let process: Process
        private let scratch: TemporaryDirectory
        private let exit: Task<Int32, any Error>

        init(_ arguments: [String], executable: URL? = nil) throws {
            scratch = try TemporaryDirectory()
            try Data().write(to: scratch.file("stdout"))
            try Data().write(to: scratch.file("stderr"))
            let process = Process()
            process.executableURL = try executable ?? CLI.executable()
            process.arguments = arguments
            process.standardOutput = try FileHandle(forWritingTo: scratch.file("stdout"))
            process.standardError = try FileHandle(forWritingTo: scratch.file("stderr"))
            process.standardInput = FileHandle.nullDevice
            let (ended, continuation) = AsyncStream<Int32>.makeStream()
            process.terminationHandler = { finished in
                continuation.yield(finished.terminationStatus)
                continuation.finish()
            }
            try process.run()
            self.process = process
            let name = process.executableURL?.lastPathComponent ?? "the command"
            exit = Task {
                for await status in ended { return status }
                throw CLITestError("\(name) ended without a status")
            }
        }

        /// What the command has written to standard output so far.
        var output: String {
            String(decoding: (try? Data(contentsOf: scratch.file("stdout"))) ?? Data(), as: UTF8.self)
        }

        var errors: String {
            String(decoding: (try? Data(contentsOf: scratch.file("stderr"))) ?? Data(), as: UTF8.self)
        }

        /// Waits until the output contains `text` (at most `seconds`: a hung command fails the
        /// test instead of blocking it) and returns the output.
        @discardableResult
        func waitForOutput(containing text: String, seconds: Double = 60) async throws -> String {
            let deadline = Date().addingTimeInterval(seconds)
            while Date() < deadline {
                let current = output
                if current.contains(text) { return current }
                guard process.isRunning else { break }
                try await Task.sleep(nanoseconds: 20_000_000)
            }
            throw CLITestError("telemetrykit did not print \(text.debugDescription); output: \(output) \(errors)")
        }

        /// The port of the collector the command started (from its "Collecting on" line).
        func collectorPort() async throws -> Int {
            let output = try await waitForOutput(containing: "  (events: ")
            let prefix = "Collecting on http://127.0.0.1:"
            guard let start = output.range(of: prefix)?.upperBound,
                let port = Int(output[start...].prefix { $0.isNumber })
            else { throw CLITestError("no port in: \(output)") }
            return port
        }

        /// The resident memory of the process in bytes (VmRSS of /proc/PID/status).
        func residentBytes() throws -> Int {
            let status = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
            guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
                let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
            else { throw CLITestError("no VmRSS in /proc/\(process.processIdentifier)/status") }
            return kilobytes * 1024
        }

        /// Sends `signal` (e.g. SIGINT, what Ctrl-C sends).
        func send(_ signal: Int32) {
            kill(process.processIdentifier, signal)
        }

        /// Waits for the process to end and returns its status and output.
        func finish() async throws -> Run {
            let status = try await exit.value
            let run = Run(status: status, output: output, errors: errors)
            scratch.remove()
            return run
        }

        deinit {
            if process.isRunning { process.terminate() }
            scratch.remove()
        }
    }
}

struct CLITestError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
#endif
