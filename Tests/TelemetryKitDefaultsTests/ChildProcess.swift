import Dispatch
import Foundation
import TelemetryKitTesting
import Testing

/// An executable of this package run as a child process, as a user runs a program.
enum ChildProcess {
    /// Runs the executable `name` with `arguments` and returns its exit status and its output
    /// (standard output and error together), once it has ended.
    static func run(_ name: String, _ arguments: [String] = []) async throws -> (status: Int32, output: String) {
        let (found, searched) = TestExecutable.locate(name)
        let executable = try #require(
            found,
            "build the \(name) executable first (swift build --build-tests); searched \(searched)"
        )
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // Waited for on a dispatch thread: blocking one of the cooperative pool's threads (one
        // per core) for the child's whole run stalled every other test of a parallel run.
        return await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let data = output.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, String(decoding: data, as: UTF8.self)))
            }
        }
    }
}
