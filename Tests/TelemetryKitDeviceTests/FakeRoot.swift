import Foundation

/// A temporary directory that stands for `/`, with fake system files; removed on `remove()`.
struct FakeRoot {
    let path: String

    init(files: [String: Data] = [:], directories: [String] = []) throws {
        path =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("TelemetryKitDeviceTests-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        for directory in directories {
            try FileManager.default.createDirectory(atPath: "\(path)/\(directory)", withIntermediateDirectories: true)
        }
        for (relativePath, contents) in files {
            let url = URL(fileURLWithPath: "\(path)/\(relativePath)")
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(),
                withIntermediateDirectories: true
            )
            try contents.write(to: url)
        }
    }

    init(text files: [String: String]) throws {
        try self.init(files: files.mapValues { Data($0.utf8) })
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

enum FakeFiles {
    static let osRelease = "etc/os-release"
    static let usrLibOSRelease = "usr/lib/os-release"
    static let productName = "sys/class/dmi/id/product_name"
}
