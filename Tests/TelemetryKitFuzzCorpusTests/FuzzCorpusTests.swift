import Foundation
import TelemetryKitFuzzChecks
import Testing

/// Every committed fuzz input (the seed corpus and the inputs of fixed crashes) runs through
/// its check in the normal test suite, so a fixed crash stays fixed without a fuzzing build.
struct FuzzCorpusTests {
    /// Fuzz/Corpus at the package's root (this file is in Tests/<target>/).
    static let corpus = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .deletingLastPathComponent()
        .appendingPathComponent("Fuzz/Corpus", isDirectory: true)

    /// The collector's parser needs the Tools trait and a debug build.
    @Test(arguments: FuzzCheck.allCases.filter(\.isAvailable))
    func everyCommittedInputPassesItsCheck(_ check: FuzzCheck) throws {
        let directory = Self.corpus.appendingPathComponent(check.rawValue, isDirectory: true)
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted()
        #expect(names.count >= 3, "the seed corpus of \(check) is in \(directory.path)")
        for name in names {
            let bytes = try [UInt8](Data(contentsOf: directory.appendingPathComponent(name)))
            #expect(throws: Never.self, "\(check.rawValue)/\(name)") {
                try bytes.withUnsafeBytes { try check.run($0) }
            }
        }
    }
}
