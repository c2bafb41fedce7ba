package import Foundation

/// Finds an executable target of this package that tests run as a separate process (the
/// crash tester the durability tests kill, the top-level-code check): beside the test
/// bundle, or in `.build/debug` / `.build/release` of the package.
package enum TestExecutable {
    /// The executable named `name`, and every place that was searched (for the failure message).
    package static func locate(_ name: String, filePath: String = #filePath) -> (url: URL?, searched: [String]) {
        var candidates: [URL] = []
        for start in [CommandLine.arguments.first, Bundle.main.executablePath].compactMap({ $0 }) {
            var directory = URL(fileURLWithPath: start).resolvingSymlinksInPath().deletingLastPathComponent()
            // Linux: .build/<triple>/debug/<Package>PackageTests.xctest; macOS: …/X.xctest/Contents/MacOS/X.
            for _ in 0..<4 {
                candidates.append(directory.appendingPathComponent(name))
                directory = directory.deletingLastPathComponent()
            }
        }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            candidates.append(
                URL(fileURLWithPath: bundle.bundlePath).deletingLastPathComponent().appendingPathComponent(name)
            )
        }
        // <root>/Tests/<Target>/<file>.swift
        let packageRoot = URL(fileURLWithPath: filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        for configuration in ["debug", "release"] {
            candidates.append(packageRoot.appendingPathComponent(".build/\(configuration)/\(name)"))
        }
        let url = candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
        return (url, candidates.map(\.path))
    }
}
