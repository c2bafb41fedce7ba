import Foundation
import Testing

struct TopLevelAwaitTests {
    /// The build folder holding the test bundle and the executables.
    static var buildDirectory: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
    }

    @Test func awaitedEventFromTopLevelCodeWaitsForTheCache() throws {
        let executable = Self.buildDirectory.appendingPathComponent("TopLevelAwaitCheck")
        try #require(
            FileManager.default.isExecutableFile(atPath: executable.path),
            "build the TopLevelAwaitCheck executable first (swift build --build-tests)"
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
