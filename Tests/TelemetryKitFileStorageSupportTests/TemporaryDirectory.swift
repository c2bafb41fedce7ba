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

/// A fresh directory under the system temporary directory, removed by `remove()`.
struct TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("telemetrykit-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    func file(_ name: String) -> URL {
        url.appendingPathComponent(name, isDirectory: false)
    }

    func remove() {
        try? FileManager.default.removeItem(at: url)
    }
}

/// The permission bits of a file (`stat`), or nil when it does not exist.
func permissionBits(of url: URL) -> Int? {
    var info = stat()
    guard stat(url.path, &info) == 0 else { return nil }
    return Int(info.st_mode) & 0o777
}
