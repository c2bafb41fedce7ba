#if Tools
import Foundation
import Testing

/// `telemetrykit` built as a consumer gets it without asking for the Tools trait: it has no
/// commands, so it must say how to get them on standard error and fail, whatever it is asked.
///
/// The test builds that binary itself, in a scratch folder of its own beside the package's
/// (`.build/without-tools`, kept between runs so that a second run only checks it is up to
/// date). Without the trait the target depends on nothing, so the build compiles one module.
@Suite struct ToolsTraitMissingTests {
    /// The package's root: this file is Tests/TelemetryKitCLITests/ToolsTraitMissingTests.swift.
    private static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `swift` from PATH. It is always there where the tests run (they were built with it), so
    /// a missing one is a failure that says so, never a skipped test.
    private static func swift() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        for directory in path.split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent("swift")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw CLITestError("no `swift` on PATH (\(path)): the test builds telemetrykit without the Tools trait with it")
    }

    /// `swift build --product telemetrykit` without any trait, into `.build/without-tools`;
    /// returns the binary. The versions are the package's resolved ones: the build neither
    /// resolves again nor rewrites Package.resolved.
    private static func buildWithoutTools() async throws -> URL {
        let scratch = packageRoot.appendingPathComponent(".build/without-tools", isDirectory: true)
        let build = try await CLI.Background(
            [
                "build", "--product", "telemetrykit", "--disable-default-traits",
                "--package-path", packageRoot.path, "--scratch-path", scratch.path,
                "--only-use-versions-from-resolved-file",
            ],
            executable: try swift()
        ).finish()
        guard build.status == 0 else {
            throw CLITestError(
                "swift build without the Tools trait failed (\(build.status)):\n\(build.output)\n\(build.errors)"
            )
        }
        let binary = scratch.appendingPathComponent("debug/telemetrykit")
        guard FileManager.default.isExecutableFile(atPath: binary.path) else {
            throw CLITestError("swift build succeeded but left no \(binary.path):\n\(build.output)")
        }
        return binary
    }

    @Test func withoutTheToolsTraitItSaysHowToBuildItAndExits1() async throws {
        let binary = try await Self.buildWithoutTools()
        let hint =
            "telemetrykit was built without the Tools trait, so it has no commands. "
            + "Build and run it with the trait: swift run --traits Tools telemetrykit demo\n"
        // What a user would type first, and nothing at all: the same hint, and a failure.
        for arguments in [["demo"], []] {
            let run = try await CLI.Background(arguments, executable: binary).finish()
            #expect(run.status == 1, "\(arguments)")
            #expect(run.errors == hint, "\(arguments)")
            #expect(run.output.isEmpty, "\(arguments)")
        }
    }
}
#endif
