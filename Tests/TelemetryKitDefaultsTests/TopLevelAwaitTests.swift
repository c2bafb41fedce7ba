import Foundation
import TelemetryKitTesting
import Testing

struct TopLevelAwaitTests {
    @Test func awaitedEventFromTopLevelCodeWaitsForTheCache() throws {
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
        process.waitUntilExit()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0)
        #expect(text.contains("counts-match=true"))
    }
}
