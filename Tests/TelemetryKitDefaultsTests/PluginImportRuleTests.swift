import Foundation
import Testing

/// The dependency rule of DESIGN.md, read off the sources: a plugin imports the core, the
/// runtime, the conventions and support code, and another plugin only when it extends exactly
/// that one. A new import between plugins fails here before it shapes the design.
struct PluginImportRuleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// What every plugin may import: not plugins themselves. The typed events' module is API the
    /// runtime accepts (without its trait it holds only protocols and values, no macro).
    static let shared: Set<String> = [
        "TelemetryKit", "TelemetryKitClient", "TelemetryKitConventions", "TelemetryKitSupport",
        "TelemetryKitCacheSupport", "TelemetryKitFileStorageSupport", "TelemetryKitTypedEvents",
        "TelemetryKitTypedEventsMacros",
    ]

    /// The plugins that extend exactly one other plugin, and that one.
    static let extensions: [String: String] = [
        "TelemetryKitAsyncHTTPClient": "TelemetryKitHTTP",
        "TelemetryKitOpenTelemetry": "TelemetryKitHTTP",
        "TelemetryKitJavaScript": "TelemetryKitTransformations",
        "TelemetryKitComposable": "TelemetryKitPresets",
    ]

    /// Each plugin folder's module name and the TelemetryKit modules its sources import.
    static func pluginImports() throws -> [String: Set<String>] {
        let plugins = root.appendingPathComponent("Plugins")
        var imports: [String: Set<String>] = [:]
        let files = try #require(FileManager.default.enumerator(at: plugins, includingPropertiesForKeys: nil))
        for case let file as URL in files where file.pathExtension == "swift" {
            let folder = file.deletingLastPathComponent().path.dropFirst(plugins.path.count + 1)
            let module = moduleName(ofFolder: String(folder))
            let source = try String(contentsOf: file, encoding: .utf8)
            for line in source.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let index = words.firstIndex(of: "import"), index + 1 < words.count else { continue }
                guard words[..<index].allSatisfy({ ["public", "package", "@_exported", "internal"].contains($0) })
                else { continue }
                let imported = String(words[index + 1])
                if imported.hasPrefix("TelemetryKit") { imports[module, default: []].insert(imported) }
            }
        }
        return imports
    }

    /// Plugins/<Kind>/<Name> builds TelemetryKit<Name>, storages and caches with their kind
    /// (Storage/Plist: TelemetryKitPlistStorage); a single-level folder names the module.
    static func moduleName(ofFolder folder: String) -> String {
        let parts = folder.split(separator: "/").map(String.init)
        switch (parts.first, parts.count) {
        case ("Storage", 2): return "TelemetryKit\(parts[1])Storage"
        case ("Caches", 2): return "TelemetryKit\(parts[1])Cache"
        case (_, 2): return "TelemetryKit\(parts[1])"
        default: return "TelemetryKit\(parts[0])"
        }
    }

    @Test func pluginsImportNoOtherPluginUnlessTheyExtendIt() throws {
        let imports = try Self.pluginImports()
        #expect(imports.count > 30)
        for (module, imported) in imports.sorted(by: { $0.key < $1.key }) {
            let others = imported.subtracting(Self.shared).subtracting([module])
            let allowed = Self.extensions[module].map { Set([$0]) } ?? []
            #expect(others.isSubset(of: allowed), "\(module) imports \(others.sorted())")
        }
    }

    @Test func theModuleNamesMatchTheFolders() throws {
        let imports = try Self.pluginImports()
        #expect(imports["TelemetryKitPlistStorage"]?.contains("TelemetryKitFileStorageSupport") == true)
        #expect(imports["TelemetryKitSQLiteCache"]?.contains("TelemetryKitCacheSupport") == true)
        #expect(imports["TelemetryKitJavaScript"]?.contains("TelemetryKitTransformations") == true)
        #expect(imports["TelemetryKitSessionTracking"]?.contains("TelemetryKitConventions") == true)
        #expect(Self.moduleName(ofFolder: "Processors/Device") == "TelemetryKitDevice")
        #expect(Self.moduleName(ofFolder: "Transmitters/HTTP") == "TelemetryKitHTTP")
        #expect(Self.moduleName(ofFolder: "Presets") == "TelemetryKitPresets")
    }
}
