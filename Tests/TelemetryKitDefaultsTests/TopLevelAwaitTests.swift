import Dispatch
import Foundation
import TelemetryKitTesting
import Testing

struct TopLevelAwaitTests {
    @Test func awaitedEventFromTopLevelCodeWaitsForTheCache() async throws {
        let (found, searched) = TestExecutable.locate("TopLevelAwaitCheck")
        let executable = try #require(
            found,
            "build the TopLevelAwaitCheck executable first (swift build --build-tests); searched \(searched)"
        )
        let process = Process()
        process.executableURL = executable
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        // Waited for on a dispatch thread: blocking one of the cooperative pool's threads (one
        // per core) for the child's whole run stalled every other test of a parallel run.
        let (status, text) = await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let data = output.fileHandleForReading.readDataToEndOfFile()
                process.waitUntilExit()
                continuation.resume(returning: (process.terminationStatus, String(decoding: data, as: UTF8.self)))
            }
        }
        #expect(status == 0)
        #expect(text.contains("counts-match=true"))
    }
}
