// Writes numbered keys into a file-backed storage, flushing after each, so that several of
// these processes on one file interleave their writes; the multi-process storage tests run it.
//
//   telemetrykit-storage-writer <plist|json> <directory> <key-prefix> <count>
import Foundation
import TelemetryKit
import TelemetryKitJSONFileStorage
import TelemetryKitPlistStorage

let arguments = CommandLine.arguments
guard arguments.count == 5, let count = Int(arguments[4]), ["plist", "json"].contains(arguments[1]) else {
    FileHandle.standardError.write(
        Data("usage: telemetrykit-storage-writer <plist|json> <directory> <prefix> <count>\n".utf8)
    )
    exit(64)
}
let directory = URL(fileURLWithPath: arguments[2], isDirectory: true)
let prefix = arguments[3]

do {
    let storage: any ProcessorStorage =
        arguments[1] == "plist"
        ? try PlistProcessorStorage(appID: "APP-ID", directory: directory, writeDelay: 0)
        : try JSONFileProcessorStorage(appID: "APP-ID", directory: directory, writeDelay: 0)
    for index in 0..<count {
        await storage.set(index, forKey: "\(prefix).\(index)")
        await storage.flush()
    }
    print("wrote \(count)")
} catch {
    FileHandle.standardError.write(Data("cannot open the storage: \(error)\n".utf8))
    exit(1)
}
