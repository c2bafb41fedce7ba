import Foundation
import TelemetryKitDefaults
import Testing

/// The `TelemetryKitDefaults` target's dependencies in Package.swift are the one list of what it
/// assembles; these tests hold Exports.swift and `Telemetry.defaultProcessors()` to it, so adding
/// a default plugin in one place and forgetting another fails here.
struct DefaultPluginListTests {
    /// The package's root (this file is in Tests/<target>/).
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The core, the runtime, typed events and the support library: what the composition
    /// target builds on, beside the plugins it assembles.
    static let foundations = ["TelemetryKit", "TelemetryKitClient", "TelemetryKitTypedEvents", "TelemetryKitSupport"]

    /// The modules in the `dependencies: [...]` of Package.swift's `TelemetryKitDefaults`
    /// target, in order, without the foundations.
    static func defaultPluginModules() throws -> [String] {
        let manifest = try String(contentsOf: root.appendingPathComponent("Package.swift"), encoding: .utf8)
        // The target's `name:` ends its line; the product's is followed by `targets:`.
        let target = try #require(manifest.range(of: "name: \"TelemetryKitDefaults\",\n"))
        let start = try #require(manifest.range(of: "dependencies: [", range: target.upperBound..<manifest.endIndex))
        let end = try #require(manifest.range(of: "]", range: start.upperBound..<manifest.endIndex))
        return manifest[start.upperBound..<end.lowerBound]
            .split(separator: ",")
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines).trimmingCharacters(in: ["\""]) }
            .filter { !$0.isEmpty && !foundations.contains($0) }
    }

    @Test func exportsReExportExactlyTheCoreTheRuntimeTypedEventsAndTheDefaultPlugins() throws {
        let exports = try String(
            contentsOf: Self.root.appendingPathComponent("Modules/TelemetryKitDefaults/Exports.swift"),
            encoding: .utf8
        )
        let exported = exports.split(separator: "\n")
            .filter { $0.hasPrefix("@_exported public import ") }
            .map { String($0.dropFirst("@_exported public import ".count)) }
        let plugins = try Self.defaultPluginModules()
        #expect(plugins.count == 18)
        #expect(Set(exported) == Set(plugins + ["TelemetryKit", "TelemetryKitClient", "TelemetryKitTypedEvents"]))
        #expect(exported.count == plugins.count + 3)
    }

    @Test func defaultProcessorsAreTheDefaultProcessorPluginsInTheirOrder() throws {
        let processorFolders = Self.root.appendingPathComponent("Plugins/Processors")
        let processorPlugins = try Self.defaultPluginModules().filter { module in
            let name = String(module.dropFirst("TelemetryKit".count))
            return FileManager.default.fileExists(atPath: processorFolders.appendingPathComponent(name).path)
        }
        let modules = Telemetry.defaultProcessors().map { processor in
            String(String(reflecting: type(of: processor)).prefix { $0 != "." })
        }
        #expect(modules == processorPlugins)
        #expect(modules.first == "TelemetryKitPreviewFilter")
        #expect(modules.count == 13)
    }
}
