import Foundation
import Testing

/// App extensions (widgets, share and notification service extensions) may not use the shared
/// application object or the APIs Apple marks `NS_EXTENSION_UNAVAILABLE`, and the App Store
/// rejects an extension that links code which does. This host cannot build for Apple
/// platforms with `APPLICATION_EXTENSION_API_ONLY`, so the check reads the sources: no library
/// target (everything under Modules and Plugins except the collector and the command line,
/// which no app links) names one of these APIs outside comments. The two places that need the
/// application object (UIKit's background tasks, AppKit's appearance) look it up through the
/// Objective-C runtime by selector, and get nil in an extension.
struct ExtensionSafeAPITests {
    /// Calls an extension may not make, each as it would appear in Swift source.
    static let unavailableCalls = [
        "UIApplication.shared", "NSApplication.shared", "NSApp.", "NSApp?", "NSApp!", ".sharedApplication",
        "WKExtension.shared", "WKApplication.shared", "UIApplication.open", ".openURL(",
        "UIApplication.shared.beginBackgroundTask",
    ]
    /// Folders of targets only tools link (servers, the command line), not apps or extensions.
    static let toolFolders = ["Modules/TelemetryKitCollector", "Modules/telemetrykit"]

    @Test func noLibraryCodeNamesAnAPIAppExtensionsMayNotUse() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        var scanned = 0
        var found: [String] = []
        for folder in ["Modules", "Support", "Plugins"] {
            let base = root.appendingPathComponent(folder)
            let enumerator = try #require(FileManager.default.enumerator(atPath: base.path))
            while let relative = enumerator.nextObject() as? String {
                let path = folder + "/" + relative
                guard path.hasSuffix(".swift"), !Self.toolFolders.contains(where: { path.hasPrefix($0 + "/") }) else {
                    continue
                }
                scanned += 1
                let source = try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
                for (number, line) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                    let code = line.trimmingCharacters(in: .whitespaces)
                    guard !code.hasPrefix("//") else { continue }
                    for call in Self.unavailableCalls where code.contains(call) {
                        found.append("\(path):\(number + 1): \(call)")
                    }
                }
            }
        }
        // The runtime, the processors, storages, caches and transmitters: well over a hundred files.
        #expect(scanned > 100)
        #expect(found == [])
    }
}
