import Foundation
import Testing

/// Apple's required-reason APIs, read off the sources: a library target that calls one declares
/// it, with a reason Apple accepts, in the `PrivacyInfo.xcprivacy` in its folder, and declares
/// nothing it does not call. An app whose code calls one undeclared is refused at upload
/// (ITMS-91053); a declaration that nothing needs is a question from App Review.
struct PrivacyManifestTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let manifestName = "PrivacyInfo.xcprivacy"

    /// Folders of targets that no app links: the `telemetrykit` command line and the macro's
    /// compiler plugin (it runs inside the compiler, at build time).
    static let notLinkedIntoApps = ["Modules/telemetrykit", "Modules/TelemetryKitTypedEventsMacros"]

    /// The folders of the library targets, relative to the package root: Modules/<Module>,
    /// Support/<Module>, and Plugins/<Name> or Plugins/<Kind>/<Name> (a kind's folder holds no
    /// sources of its own).
    static func libraryFolders() -> [String] {
        let files = FileManager.default
        func subfolders(_ path: String) -> [String] {
            let names = (try? files.contentsOfDirectory(atPath: root.appendingPathComponent(path).path)) ?? []
            return names.sorted().map { "\(path)/\($0)" }.filter { isFolder($0) && !$0.hasSuffix(".docc") }
        }
        func isFolder(_ path: String) -> Bool {
            var isDirectory: ObjCBool = false
            return files.fileExists(atPath: root.appendingPathComponent(path).path, isDirectory: &isDirectory)
                && isDirectory.boolValue
        }
        func holdsSources(_ path: String) -> Bool {
            let names = (try? files.contentsOfDirectory(atPath: root.appendingPathComponent(path).path)) ?? []
            return names.contains { $0.hasSuffix(".swift") }
        }
        let plugins = subfolders("Plugins").flatMap { holdsSources($0) ? [$0] : subfolders($0) }
        return (subfolders("Modules") + subfolders("Support") + plugins).filter { !notLinkedIntoApps.contains($0) }
    }

    /// The required-reason APIs each library folder's Swift sources use, read once for all the
    /// tests (1.4 MB of sources).
    static let scan = Result { () throws -> [String: [RequiredReasonUse]] in
        var usesByFolder: [String: [RequiredReasonUse]] = [:]
        for folder in libraryFolders() {
            let base = root.appendingPathComponent(folder)
            guard let files = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else {
                throw CocoaError(.fileReadUnknown, userInfo: [NSFilePathErrorKey: base.path])
            }
            var uses: [RequiredReasonUse] = []
            for case let file as URL in files where file.pathExtension == "swift" {
                let relative = folder + file.path.dropFirst(base.path.count)
                uses += RequiredReasonUse.uses(in: try String(contentsOf: file, encoding: .utf8), file: relative)
            }
            usesByFolder[folder] = uses.sorted { ($0.file, $0.line) < ($1.file, $1.line) }
        }
        return usesByFolder
    }

    /// Every required-reason API the Swift sources under `folder` use.
    static func uses(inFolder folder: String) throws -> [RequiredReasonUse] {
        try #require(try scan.get()[folder], "\(folder) is not a library target's folder")
    }

    /// The manifest in `folder`, nil when there is none.
    static func manifest(inFolder folder: String) throws -> PrivacyManifest? {
        let url = root.appendingPathComponent(folder).appendingPathComponent(manifestName)
        guard FileManager.default.fileExists(atPath: url.path) else { return nil }
        return try PrivacyManifest(contentsOf: url)
    }

    /// Every manifest under Modules/, Support/ and Plugins/, relative to the package root.
    static let manifestPaths: [String] = ["Modules", "Support", "Plugins"].flatMap { top -> [String] in
        let base = root.appendingPathComponent(top)
        guard let files = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else { return [] }
        return files.compactMap { ($0 as? URL)?.path }.filter { $0.hasSuffix("/" + manifestName) }
            .map { String($0.dropFirst(root.path.count + 1)) }.sorted()
    }

    @Test func everyRequiredReasonAPIAModuleUsesIsDeclaredInItsManifest() throws {
        let folders = Self.libraryFolders()
        #expect(folders.count > 30)
        for folder in folders {
            let uses = try Self.uses(inFolder: folder)
            guard !uses.isEmpty else { continue }
            let declared = try Self.manifest(inFolder: folder)?.declaredReasons ?? [:]
            for use in uses where declared[use.category]?.isEmpty ?? true {
                Issue.record("\(use), undeclared: \(folder)/\(Self.manifestName) needs \(use.category) with a reason")
            }
        }
    }

    @Test func aManifestDeclaresOnlyTheCategoriesItsModuleUses() throws {
        let folders = Set(Self.libraryFolders())
        #expect(Self.manifestPaths.count >= 5)
        for path in Self.manifestPaths {
            let folder = String(path.dropLast(Self.manifestName.count + 1))
            #expect(folders.contains(folder), "\(path) is not in a library target's folder")
            let declared = try #require(try Self.manifest(inFolder: folder)).declaredReasons
            let used = Set(try Self.uses(inFolder: folder).map(\.category))
            #expect(Set(declared.keys) == used, "\(path) declares \(declared.keys.sorted()); the code uses \(used)")
        }
    }

    /// The calls this package makes today, found where they are and nowhere else: the scan sees
    /// code, and skips a doc comment that names an API (ProcessorStorage's "shaped like
    /// `UserDefaults`").
    @Test func theScanFindsThePackagesCalls() throws {
        let timestamps = RequiredReasonAPI.fileTimestamp.category
        let found = try Self.libraryFolders().flatMap { try Self.uses(inFolder: $0) }
        let named = Set(found.map { "\($0.file) \($0.name) \($0.category)" })
        let expected: Set = [
            "Support/TelemetryKitCacheSupport/CorruptCopyPath.swift lstat \(timestamps)",
            "Plugins/Caches/JSONLines/JSONLinesJournal.swift fstat \(timestamps)",
            "Support/TelemetryKitFileStorageSupport/FileBackedProcessorStorage.swift stat \(timestamps)",
            "Modules/TelemetryKitTesting/TemporaryDirectory.swift stat \(timestamps)",
            "Modules/TelemetryKitDefaults/TelemetryDeckImporter+Apple.swift UserDefaults "
                + RequiredReasonAPI.userDefaults.category,
        ]
        #expect(expected.isSubset(of: named), "missing: \(expected.subtracting(named).sorted())")
        #expect(!found.contains { $0.file.hasPrefix("Modules/TelemetryKit/") })
    }

    @Test(arguments: manifestPaths)
    func aManifestIsAPropertyListWithApplesKeysAndReasons(path: String) throws {
        let data = try Data(contentsOf: Self.root.appendingPathComponent(path))
        #expect(try PrivacyManifest.topLevelKeys(of: data) == PrivacyManifest.topLevelKeys)
        let manifest = try PropertyListDecoder().decode(PrivacyManifest.self, from: data)
        #expect(manifest.tracking == false)
        #expect(manifest.trackingDomains == [])
        #expect(Set(manifest.accessedAPITypes.map(\.category)).count == manifest.accessedAPITypes.count)
        for declaration in manifest.accessedAPITypes {
            let api = RequiredReasonAPI.all.first { $0.category == declaration.category }
            #expect(api != nil, "\(path): \(declaration.category) is not one of Apple's categories")
            #expect(!declaration.reasons.isEmpty, "\(path): \(declaration.category) without a reason")
            let unknown = Set(declaration.reasons).subtracting(api?.reasons ?? [])
            #expect(unknown.isEmpty, "\(path): \(unknown.sorted()) are not reasons for \(declaration.category)")
        }
    }

    /// What to answer in App Store Connect for the default set, as TelemetryDeck's SDK declares
    /// it: product interaction and a device ID, not linked to the person, not for tracking.
    @Test func theDefaultSetDeclaresWhatItCollects() throws {
        let manifest = try #require(try Self.manifest(inFolder: "Modules/TelemetryKitDefaults"))
        let analytics = ["NSPrivacyCollectedDataTypePurposeAnalytics"]
        #expect(
            manifest.collectedDataTypes == [
                .init(
                    type: "NSPrivacyCollectedDataTypeProductInteraction",
                    isLinkedToIdentity: false,
                    isUsedForTracking: false,
                    purposes: analytics
                ),
                .init(
                    type: "NSPrivacyCollectedDataTypeDeviceID",
                    isLinkedToIdentity: false,
                    isUsedForTracking: false,
                    purposes: analytics
                ),
            ]
        )
        #expect(manifest.declaredReasons == [RequiredReasonAPI.userDefaults.category: ["CA92.1"]])
    }

    /// A manifest that is not a resource of its target is not in the app, and SwiftPM says
    /// nothing about it: in Package.swift each such folder's target takes
    /// `resources: privacyManifest.resources`.
    @Test func everyManifestIsAResourceOfItsTarget() throws {
        let package = try String(contentsOf: Self.root.appendingPathComponent("Package.swift"), encoding: .utf8)
        for path in Self.manifestPaths {
            let folder = String(path.dropLast(Self.manifestName.count + 1))
            let declaration = try #require(package.range(of: "path: \"\(folder)\""), "no target in \(folder)")
            let rest = package[declaration.upperBound...]
            let end = rest.range(of: "path: ")?.lowerBound ?? rest.endIndex
            #expect(
                rest[..<end].contains("resources: privacyManifest.resources"),
                "\(folder)'s target lacks the manifest"
            )
        }
    }

    @Test func theScanSkipsCommentsAndSeesCallsAfterStrings() {
        let source = """
            let url = "https://example.com/*"; var info = stat() // UserDefaults, lstat(
            /* fstat(descriptor, &info) /* nested */ systemUptime */ fstat (descriptor, &info)
            /// Shaped like `UserDefaults`.
            let key = FileAttributeKey.modificationDate
            let stat = 1; let defaults = UserDefaultsProcessorStorage()
            """
        let uses = RequiredReasonUse.uses(in: source, file: "F.swift").map { "\($0.line) \($0.name)" }
        #expect(uses == ["1 stat", "2 fstat", "4 modificationDate"])
    }
}
