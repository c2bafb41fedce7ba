// swift-tools-version: 6.2

import CompilerPluginSupport
import PackageDescription

// TelemetryKit: an API core that plugins compile against, one client runtime, one target per
// plugin, and `TelemetryKitDefaults`, which assembles the default set. Targets come from the tables
// below and products from them. Folders: Modules/<Module>, Plugins/<Kind>/<Name> (storages and
// caches add their kind: Plugins/Storage/Plist is TelemetryKitPlistStorage), Tests/ (test targets
// only), TestSupport/ (what the tests run), Fuzz/, SystemLibraries/ (C shims).

// MARK: - Traits, and each trait's condition written once
let traits: [(name: String, description: String)] = [
    ("Tools", "The dev collector and the `telemetrykit` CLI (swift-argument-parser, swift-nio)."),
    ("SwiftLog", "TelemetryKitSwiftLog: route SDK diagnostics into swift-log."),
    ("Dependencies", "AnalyticsClient as a swift-dependencies DependencyKey."),
    ("ServiceLifecycle", "TelemetryKitServiceLifecycle: a client as a swift-service-lifecycle Service."),
    ("AsyncHTTPClient", "TelemetryKitAsyncHTTPClient: an HTTPConnection on async-http-client."),
    ("TypedEvents", "TelemetryKitTypedEvents: the @TelemetryEvent macro (swift-syntax)."),
    ("OpenTelemetry", "TelemetryKitOpenTelemetry: OTLP/HTTP export and trace correlation."),
    ("Metrics", "TelemetryKitMetrics: the client's counters as swift-metrics."),
]

let whenTools: TargetDependencyCondition? = .when(traits: ["Tools"])
let whenSwiftLog: TargetDependencyCondition? = .when(traits: ["SwiftLog"])
let whenDependencies: TargetDependencyCondition? = .when(traits: ["Dependencies"])
let whenServiceLifecycle: TargetDependencyCondition? = .when(traits: ["ServiceLifecycle"])
let whenAsyncHTTPClient: TargetDependencyCondition? = .when(traits: ["AsyncHTTPClient"])
let whenTypedEvents: TargetDependencyCondition? = .when(traits: ["TypedEvents"])
let whenOpenTelemetry: TargetDependencyCondition? = .when(traits: ["OpenTelemetry"])
let whenMetrics: TargetDependencyCondition? = .when(traits: ["Metrics"])
let onLinux: TargetDependencyCondition? = .when(platforms: [.linux])
/// Platforms whose SDK has no `SQLite3` module: SQLite comes from the system library there.
let withoutSDKSQLite: TargetDependencyCondition? = .when(platforms: [.linux, .android, .windows, .openbsd])

/// A dependency on `name`, only when `condition` holds.
func target(_ name: String, _ condition: TargetDependencyCondition?) -> Target.Dependency {
    .target(name: name, condition: condition)
}

/// Products of another package, only when `condition` holds (nil: always).
func products(_ names: [String], of package: String, _ when: TargetDependencyCondition? = nil) -> [Target.Dependency] {
    names.map { .product(name: $0, package: package, condition: when) }
}

// MARK: - Package dependencies
// The DocC plugin for `.ci/docs` only (it sets TELEMETRYKIT_DOCS): a consumer never fetches it.
let documentationPlugin: [Package.Dependency] =
    Context.environment["TELEMETRYKIT_DOCS"] == nil
    ? [] : [.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0")]

// Only swift-crypto (SHA-256 on Linux) and IssueReporting (TelemetryKitComposable's test helpers)
// are used without a trait; the others only under the traits beside them, so they are fetched
// only when a consumer enables one. swift-syntax 603 is the release for Swift 6.3 (602's macro
// plugin reports an "Internal Error" there).
let dependencies: [Package.Dependency] =
    documentationPlugin
    + [
        ("apple/swift-crypto", "4.5.2"), ("pointfreeco/xctest-dynamic-overlay", "1.13.1"),
        ("apple/swift-log", "1.16.2"),  // SwiftLog, ServiceLifecycle
        ("swift-server/swift-service-lifecycle", "2.13.0"),  // ServiceLifecycle
        ("swift-server/async-http-client", "1.37.0"),  // AsyncHTTPClient
        ("apple/swift-nio", "2.101.2"),  // Tools, AsyncHTTPClient
        ("apple/swift-argument-parser", "1.8.2"),  // Tools
        ("swiftlang/swift-syntax", "603.0.1"),  // TypedEvents
        ("apple/swift-distributed-tracing", "1.7.3"),  // OpenTelemetry
        ("apple/swift-metrics", "2.13.0"),  // Metrics
    ].map { .package(url: "https://github.com/\($0.0).git", from: Version(stringLiteral: $0.1)) }
    // Dependencies (without its default traits).
    + [.package(url: "https://github.com/pointfreeco/swift-dependencies.git", from: "1.17.1", traits: [])]

// MARK: - The table

/// Apple's privacy manifest of a target that calls a required-reason API (file timestamps,
/// `UserDefaults`…; TelemetryKitPrivacyManifestTests finds the calls): a resource where apps are
/// built, excluded elsewhere. On Linux a resource makes SwiftPM generate a bundle accessor that
/// imports Foundation, linking all of Foundation and ICU into modules that import only
/// FoundationEssentials; excluded, no later SwiftPM turns it into a resource on its own.
#if canImport(Darwin)
let privacyManifest: (resources: [Resource], exclude: [String]) = ([.copy("PrivacyInfo.xcprivacy")], [])
#else
let privacyManifest: (resources: [Resource], exclude: [String]) = ([], ["PrivacyInfo.xcprivacy"])
#endif

/// One library target `TelemetryKit<name>` in `path` and, unless `tests` is nil, its test
/// target in Tests/TelemetryKit<name>Tests (on the library, the testing kit and `tests`).
struct Library {
    var name: String
    var path: String
    var dependencies: [Target.Dependency] = []
    var tests: [Target.Dependency]? = []
    var isProduct = true
    var linkerSettings: [LinkerSetting] = []
    var resources: [Resource] = []
    var exclude: [String] = []

    init(_ name: String, _ path: String, _ dependencies: [Target.Dependency] = [], tests: [Target.Dependency]? = []) {
        (self.name, self.path, self.dependencies, self.tests) = ("TelemetryKit\(name)", path, dependencies, tests)
    }

    /// Not a product: reached through the products that use it.
    var support: Library { with { $0.isProduct = false } }
    /// Calls a required-reason API, declared in PrivacyInfo.xcprivacy in its folder.
    var withPrivacyManifest: Library { with { ($0.resources, $0.exclude) = privacyManifest } }
    func with(_ change: (inout Library) -> Void) -> Library {
        var library = self
        change(&library)
        return library
    }
}

let support: Target.Dependency = "TelemetryKitSupport"
let client: Target.Dependency = "TelemetryKitClient"
let conventions: Target.Dependency = "TelemetryKitConventions"
let typedEvents: Target.Dependency = "TelemetryKitTypedEvents"
let http: Target.Dependency = "TelemetryKitHTTP"
let transformations: Target.Dependency = "TelemetryKitTransformations"
let cacheSupport: [Target.Dependency] = [support, "TelemetryKitCacheSupport"]
let sqlite = target("CSQLite", withoutSDKSQLite)
let collector = target("TelemetryKitCollector", whenTools)
let tracing = products(["Instrumentation"], of: "swift-distributed-tracing", whenOpenTelemetry)
let swiftLog = products(["Logging"], of: "swift-log", whenSwiftLog)
let lifecycle = products(["ServiceLifecycle"], of: "swift-service-lifecycle", whenServiceLifecycle)
let metrics = products(["CoreMetrics"], of: "swift-metrics", whenMetrics)
let issueReporting = products(["IssueReporting"], of: "xctest-dynamic-overlay")
let pointFree = issueReporting + products(["Dependencies"], of: "swift-dependencies", whenDependencies)
let asyncHTTPClient = products(["AsyncHTTPClient"], of: "async-http-client", whenAsyncHTTPClient)
let nioClient = products(["NIOCore", "NIOHTTP1"], of: "swift-nio", whenAsyncHTTPClient)
let nioServer = products(["NIOCore", "NIOPosix", "NIOHTTP1"], of: "swift-nio", whenTools)

/// The API core (values and protocols: what a plugin compiles against), `package` helpers of the
/// caches, transmitters and runtime, the runtime, the names TelemetryDeck knows, the testing kit.
let modules: [Library] = [
    Library("", "Modules/TelemetryKit", tests: nil),
    Library("Support", "Modules/TelemetryKitSupport", products(["Crypto"], of: "swift-crypto", onLinux), tests: nil)
        .support,
    Library("Client", "Modules/TelemetryKitClient", [support, typedEvents], tests: nil),
    Library("Conventions", "Modules/TelemetryKitConventions", tests: nil),
    Library("Testing", "Modules/TelemetryKitTesting", [client, support, "TelemetryKitInMemoryStorage"], tests: nil)
        .withPrivacyManifest,
]

/// Beyond the core, the conventions and Support (tests: DefaultPrefix's prefix, plists shared by two processes).
let processorNeeds: [String: (library: [Target.Dependency], tests: [Target.Dependency])] = [
    "DefaultParameters": ([], ["TelemetryKitDefaultPrefix"]), "UserIdentifier": ([], ["TelemetryKitPlistStorage"]),
    "SessionTracking": ([], ["TelemetryKitPlistStorage"]), "TrackingPlan": ([typedEvents], []),
]
/// Processors in the default pipeline's order, then the others.
let processors: [Library] = [
    "PreviewFilter", "DefaultParameters", "DefaultPrefix", "Validation", "TestMode", "UserIdentifier",
    "SessionTracking", "Device", "AppInfo", "Locale", "Calendar", "Accessibility", "TrialConversion", "Consent",
    "TrackingPlan",
].map { name in
    let needs = processorNeeds[name] ?? ([], [])
    return Library(name, "Plugins/Processors/\(name)", [conventions, support] + needs.library, tests: needs.tests)
}

/// Storages (both file storages share TelemetryKitFileStorageTests), durable caches and
/// transmitters (AsyncHTTPClient and OpenTelemetry extend HTTP, each empty without its trait).
let storagesCachesAndTransmitters: [Library] = [
    Library("InMemoryStorage", "Plugins/Storage/InMemory", [support]),
    Library("FileStorageSupport", "Plugins/Storage/FileSupport", [support]).support.withPrivacyManifest,
    Library("PlistStorage", "Plugins/Storage/Plist", ["TelemetryKitFileStorageSupport"], tests: nil),
    Library("JSONFileStorage", "Plugins/Storage/JSONFile", ["TelemetryKitFileStorageSupport"], tests: nil),
    Library("CacheSupport", "Plugins/Caches/Support", [support]).support.withPrivacyManifest,
    Library("SQLiteCache", "Plugins/Caches/SQLite", cacheSupport + [sqlite], tests: [sqlite, client]),
    Library("JSONLinesCache", "Plugins/Caches/JSONLines", cacheSupport).withPrivacyManifest,
    Library("HTTP", "Plugins/Transmitters/HTTP", [support, "CZlib"], tests: [client, support, collector])
        .with { $0.tests! += [transformations, target("TelemetryKitHTTPTestSupport", whenTools)] },
    Library("Console", "Plugins/Transmitters/Console", [support]),
    Library("AsyncHTTPClient", "Plugins/Transmitters/AsyncHTTPClient", [http] + asyncHTTPClient + nioClient)
        .with { $0.tests = [http, client, collector] + asyncHTTPClient },
    // Its tests decode every body with the OpenTelemetry project's Python classes.
    Library("OpenTelemetry", "Plugins/Transmitters/OpenTelemetry", [support, http] + tracing)
        .with { $0.tests = [http, "TelemetryKitSQLiteCache", client] + tracing },
]

/// Transformations (JavaScript extends them: JavaScriptCore is the system framework on Apple
/// platforms, none on watchOS, Debian's WebKitGTK build on Linux), v3's presets, add-ons of the
/// runtime, bridges to other packages, and typed events (the client and TrackingPlan use them;
/// `@TelemetryEvent` only with the trait, so nothing else needs swift-syntax).
let extensions: [Library] = [
    Library("Transformations", "Plugins/Transformations", [support], tests: [client]),
    Library("JavaScript", "Plugins/JavaScript", [support, transformations, target("CJavaScriptCore", onLinux)])
        .with {
            $0.tests = [transformations, client]
            $0.linkerSettings = [
                .linkedFramework("JavaScriptCore", .when(platforms: [.macOS, .iOS, .tvOS, .visionOS]))
            ]
        },
    Library("Presets", "Plugins/Presets", [client, conventions], tests: [client, "TelemetryKitDefaults"]),
    Library("Composable", "Plugins/Composable", [client, support, typedEvents, "TelemetryKitPresets"] + pointFree)
        .with { $0.tests = pointFree + products(["IssueReportingTestSupport"], of: "xctest-dynamic-overlay") },
    Library("SwiftLog", "Plugins/SwiftLog", swiftLog, tests: [client] + swiftLog)
        .with { $0.tests! += products(["InMemoryLogging"], of: "swift-log", whenSwiftLog) },
    Library("ServiceLifecycle", "Plugins/ServiceLifecycle", [client] + lifecycle, tests: lifecycle)
        .with { $0.tests! += products(["Logging"], of: "swift-log", whenServiceLifecycle) },
    Library("Metrics", "Plugins/Metrics", [client, support] + metrics, tests: metrics)
        .with { $0.tests! += products(["MetricsTestKit"], of: "swift-metrics", whenMetrics) },
    Library("TypedEvents", "Plugins/TypedEvents/Library", [target("TelemetryKitTypedEventsMacros", whenTypedEvents)])
        .with { $0.tests = ["TelemetryKitTrackingPlan", "TelemetryKitComposable", http, client] },
]

/// The plugins `TelemetryKitDefaults` re-exports and assembles, in one place
/// (DefaultPluginListTests checks Exports.swift and `defaultProcessors()` against it).
let defaultPlugins = [
    "PreviewFilter", "DefaultParameters", "DefaultPrefix", "Validation", "TestMode", "UserIdentifier",
    "SessionTracking", "Device", "AppInfo", "Locale", "Calendar", "Accessibility", "TrialConversion",
    "InMemoryStorage", "PlistStorage", "SQLiteCache", "HTTP", "Presets",
]

/// The composition target and the development collector (trait Tools).
let composition: [Library] = [
    Library(
        "Defaults",
        "Modules/TelemetryKitDefaults",
        [client, support, typedEvents] + defaultPlugins.map { .target(name: "TelemetryKit\($0)") }
    )
    .with { $0.tests = ["TopLevelAwaitCheck", "telemetrykit-quickexit", collector] }.withPrivacyManifest,
    Library("Collector", "Modules/TelemetryKitCollector", [support, "CZlib", "TelemetryKitTrackingPlan"] + nioServer)
        .with { $0.tests = [http, support] },
]

let libraries = modules + processors + storagesCachesAndTransmitters + extensions + composition

// MARK: - Test targets beyond each library's own, executables, system libraries
let settings: [SwiftSetting] = [
    .swiftLanguageMode(.v6), .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"), .enableUpcomingFeature("InternalImportsByDefault"),
]

/// TelemetryDeck v3's own settings, which Xcode's "Approachable Concurrency" also turns on: the
/// facade's tests are written as a migrating app writes its code (a v3 processor's plain
/// `@Sendable` `next` means `nonisolated(nonsending)` here).
let appSettings: [SwiftSetting] = [
    .enableUpcomingFeature("NonisolatedNonsendingByDefault"), .enableUpcomingFeature("InferIsolatedConformances"),
]
let testsBuiltAsAnApp: Set = ["TelemetryKitDefaultsTests"]

func testTarget(_ name: String, _ dependencies: [Target.Dependency], resources: [Resource]? = nil) -> Target {
    .testTarget(
        name: name,
        dependencies: dependencies,
        path: "Tests/\(name)",
        resources: resources,
        swiftSettings: settings + (testsBuiltAsAnApp.contains(name) ? appSettings : [])
    )
}

func system(_ name: String, pkgConfig: String, apt: String) -> Target {
    .systemLibrary(name: name, path: "SystemLibraries/\(name)", pkgConfig: pkgConfig, providers: [.apt([apt])])
}

func executable(_ name: String, _ dependencies: [Target.Dependency], path: String) -> Target {
    .executableTarget(name: name, dependencies: dependencies, path: path, swiftSettings: settings)
}

func helper(
    _ name: String,
    _ dependencies: [Target.Dependency],
    path: String,
    linker: [LinkerSetting] = [],
    resources: [Resource] = [],
    exclude: [String] = []
) -> Target {
    .target(
        name: name,
        dependencies: dependencies,
        path: path,
        exclude: exclude,
        resources: resources,
        swiftSettings: settings,
        linkerSettings: linker
    )
}

let fuzzedReaders = ["EventJSON", "TransformationSettings", "JSONLinesJournal", "IngestRequest"]
let syntax = ["SwiftSyntax", "SwiftSyntaxMacros", "SwiftDiagnostics"]
func syntaxProducts(_ names: [String]) -> [Target.Dependency] {
    products(syntax + names, of: "swift-syntax", whenTypedEvents)
}
let fileStorages: [Target.Dependency] = ["TelemetryKitPlistStorage", "TelemetryKitJSONFileStorage"]
let durableCaches: [Target.Dependency] = ["TelemetryKitSQLiteCache", "TelemetryKitJSONLinesCache"]
let cliModules = [
    "Collector", "HTTP", "Console", "Defaults", "SQLiteCache", "Support", "Transformations", "TrackingPlan",
]
let testKit: Target.Dependency = "TelemetryKitTesting"
let httpTestSupport = target("TelemetryKitHTTPTestSupport", whenTools)
let inMemory: Target.Dependency = "TelemetryKitInMemoryStorage"

let otherTargets: [Target] =
    [
        // The core alone: a processor plugin built and run against nothing but the API.
        testTarget("TelemetryKitTests", ["TelemetryKit"]),
        testTarget("TelemetryKitClientTests", [client, support, testKit]),
        testTarget("TelemetryKitFileStorageTests", fileStorages + [testKit, "telemetrykit-storage-writer"]),
        // Kill -9 runs of telemetrykit-crashtester; files written by earlier on-disk formats.
        testTarget(
            "TelemetryKitCacheDurabilityTests",
            durableCaches + [client, support, testKit, "telemetrykit-crashtester", sqlite, collector],
            resources: [.copy("Fixtures")]
        ),
        testTarget(
            "TelemetryKitTypedEventsMacrosTests",
            [target("TelemetryKitTypedEventsMacros", whenTypedEvents)]
                + syntaxProducts(["SwiftSyntaxMacroExpansion", "SwiftSyntaxMacrosGenericTestSupport"])
        ),
        testTarget("TelemetryKitCLITests", [testKit, collector, httpTestSupport]),
        // End to end: the default pipeline, a durable cache, HTTP and the loopback collector.
        testTarget("IntegrationTests", ["TelemetryKitDefaults", testKit, support, httpTestSupport, collector]),
        testTarget("TelemetryKitFuzzCorpusTests", ["TelemetryKitFuzzChecks"]),
        // Reads the sources and the privacy manifests, as files: it links no module of ours.
        testTarget("TelemetryKitPrivacyManifestTests", []),
        .macro(
            name: "TelemetryKitTypedEventsMacros",
            dependencies: syntaxProducts(["SwiftSyntaxBuilder", "SwiftParser", "SwiftCompilerPlugin"]),
            path: "Plugins/TypedEvents/Macros",
            swiftSettings: settings
        ),
        // The `telemetrykit` command line; without the Tools trait it only says how to build it.
        executable(
            "telemetrykit",
            cliModules.map { target("TelemetryKit\($0)", whenTools) }
                + products(["ArgumentParser"], of: "swift-argument-parser", whenTools),
            path: "Modules/telemetrykit"
        ),
        // Sends numbered events through a client with a durable cache until SIGKILLed.
        executable(
            "telemetrykit-crashtester",
            durableCaches + [client, inMemory, http],
            path: "TestSupport/telemetrykit-crashtester"
        ),
        // Writes numbered keys into a storage file; the multi-process storage tests run several.
        executable("telemetrykit-storage-writer", fileStorages, path: "TestSupport/telemetrykit-storage-writer"),
        // Top-level code that checks `await Telemetry.event(...)` waits (run by the Defaults tests).
        executable("TopLevelAwaitCheck", ["TelemetryKitDefaults", testKit], path: "TestSupport/TopLevelAwaitCheck"),
        // A CLI that makes a change and exits at once (run by the Defaults tests' exit tests).
        executable(
            "telemetrykit-quickexit",
            ["TelemetryKitDefaults", "TelemetryKitConsent"],
            path: "TestSupport/telemetrykit-quickexit"
        ),
        // Connections and collector helpers for the tests that talk to the loopback collector.
        helper(
            "TelemetryKitHTTPTestSupport",
            [http, collector, target("TelemetryKitAsyncHTTPClient", whenAsyncHTTPClient)],
            path: "TestSupport/TelemetryKitHTTPTestSupport"
        ),
        // libFuzzer targets for the readers of outside bytes (.ci/fuzz); the checks live in one
        // library that the corpus tests run too, so every committed input is replayed.
        helper(
            "TelemetryKitFuzzChecks",
            durableCaches + [client, support, http, collector, inMemory, transformations],
            path: "Fuzz/Checks"
        ),
        // The system SQLite, zlib and JavaScriptCore on Linux; Apple platforms use their SDK's.
        system("CSQLite", pkgConfig: "sqlite3", apt: "libsqlite3-dev"),
        system("CZlib", pkgConfig: "zlib", apt: "zlib1g-dev"),
        system("CJavaScriptCore", pkgConfig: "javascriptcoregtk-4.0", apt: "libjavascriptcoregtk-4.0-dev"),
    ] + fuzzedReaders.map { executable("Fuzz\($0)", ["TelemetryKitFuzzChecks"], path: "Fuzz/\($0)") }

let libraryTargets: [Target] = libraries.flatMap { library -> [Target] in
    let dependencies = library.name == "TelemetryKit" ? [] : ["TelemetryKit"] + library.dependencies
    let libraryTarget = helper(
        library.name,
        dependencies,
        path: library.path,
        linker: library.linkerSettings,
        resources: library.resources,
        exclude: library.exclude
    )
    guard let tests = library.tests else { return [libraryTarget] }
    return [libraryTarget, testTarget("\(library.name)Tests", [.target(name: library.name), testKit] + tests)]
}

let package = Package(
    name: "TelemetryKit",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: libraries.filter(\.isProduct).map { .library(name: $0.name, targets: [$0.name]) }
        + [.executable(name: "telemetrykit", targets: ["telemetrykit"])],
    traits: Set(traits.map { .trait(name: $0.name, description: $0.description) }).union([.default(enabledTraits: [])]),
    dependencies: dependencies,
    targets: libraryTargets + otherTargets
)
