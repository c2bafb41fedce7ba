// swift-tools-version: 6.2

import PackageDescription

// TelemetryKit: a tiny core (`TelemetryKit`) and one target per plugin.
// Every library target below is also a product (see the end of this file), so an app
// depends on exactly the pieces it uses. Optional tooling sits behind package traits so
// that its dependencies are never fetched unless a trait is enabled.

// `.ci/docs` only (it sets TELEMETRYKIT_DOCS): the DocC plugin, so that a consumer of this
// package never resolves or fetches it.
let documentationPlugin: [Package.Dependency] =
    Context.environment["TELEMETRYKIT_DOCS"] == nil
    ? [] : [.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0")]

// Every package dependency, in one list. Only swift-crypto (SHA-256 on Linux) and
// IssueReporting are used without a trait; the others are referenced only under the trait
// named beside them, so SwiftPM fetches them only when a consumer enables that trait.
let dependencies: [Package.Dependency] =
    documentationPlugin + [
        // Core, on Linux: SHA-256 of the user identifier (CryptoKit on Apple platforms).
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        // TelemetryKitComposable: `AnalyticsClient.test` and `expect(_:)` report issues under
        // Swift Testing and XCTest alike (not trait-gated: part of the module's API).
        .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay.git", from: "1.13.1"),
        // Trait Dependencies: AnalyticsClient as a swift-dependencies DependencyKey.
        .package(url: "https://github.com/pointfreeco/swift-dependencies.git", from: "1.17.1", traits: []),
        // Traits SwiftLog and ServiceLifecycle: the swift-log bridge, and the Service's logger.
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        // Trait ServiceLifecycle: a TelemetryClient as a swift-service-lifecycle Service.
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        // Trait AsyncHTTPClient: an HTTPConnection on async-http-client (adds minutes to a build).
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        // Traits Tools (the collector, on SwiftNIO) and AsyncHTTPClient.
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        // Trait Tools: the `telemetrykit` command line.
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
    ]

// MARK: - Core

var targets: [Target] = [
    .target(
        name: "TelemetryKit",
        dependencies: [
            .product(name: "Crypto", package: "swift-crypto", condition: .when(platforms: [.linux]))
        ],
        path: "Modules/TelemetryKit"
    ),
    .target(
        name: "TelemetryKitTesting",
        dependencies: ["TelemetryKit"],
        path: "Modules/TelemetryKitTesting"
    ),
    .testTarget(
        name: "TelemetryKitTests",
        dependencies: ["TelemetryKit", "TelemetryKitTesting"],
        path: "Tests/TelemetryKitTests"
    ),
]

// MARK: - Composition (the `Telemetry` facade)

/// Plugin modules that `TelemetryKitDefaults` re-exports and assembles.
var defaultPluginModules: [Target.Dependency] = []

// MARK: - Plugins

/// A plugin: the library `TelemetryKit<name>` at `path`, on the core and `dependencies`, and
/// its tests `TelemetryKit<name>Tests` in Tests/TelemetryKit<name>Tests, on the plugin, the
/// core, `TelemetryKitTesting` and `testDependencies`. Every plugin below is declared with it.
func plugin(
    _ name: String,
    path: String,
    dependencies: [Target.Dependency] = [],
    testDependencies: [Target.Dependency] = [],
    linkerSettings: [LinkerSetting]? = nil
) -> [Target] {
    [
        .target(
            name: "TelemetryKit\(name)",
            dependencies: ["TelemetryKit"] + dependencies,
            path: path,
            linkerSettings: linkerSettings
        ),
        .testTarget(
            name: "TelemetryKit\(name)Tests",
            dependencies: [.target(name: "TelemetryKit\(name)"), "TelemetryKit", "TelemetryKitTesting"]
                + testDependencies,
            path: "Tests/TelemetryKit\(name)Tests"
        ),
    ]
}

// MARK: - Processors (Plugins/Processors/<Name>, module TelemetryKit<Name>)

/// A processor plugin, in Plugins/Processors/<name>.
func processor(_ name: String, testDependencies: [Target.Dependency] = []) -> [Target] {
    plugin(name, path: "Plugins/Processors/\(name)", testDependencies: testDependencies)
}

// In the order of the default pipeline, then the optional ones.
targets += processor("PreviewFilter")
// The defaults are custom parameters: their tests check that DefaultPrefix then prefixes them.
targets += processor("DefaultParameters", testDependencies: ["TelemetryKitDefaultPrefix"])
targets += processor("DefaultPrefix")
targets += processor("Validation")
targets += processor("TestMode")
targets += processor("UserIdentifier")
targets += processor("SessionTracking")
targets += processor("Device")
targets += processor("AppInfo")
targets += processor("Locale")
targets += processor("Calendar")
targets += processor("Accessibility")
targets += processor("TrialConversion")
targets += processor("Consent")

// MARK: - Presets (Plugins/Presets): TelemetryDeck v3's preset events, keys and durations

targets += plugin(
    "Presets",
    path: "Plugins/Presets",
    testDependencies: [
        // Checks that DefaultParams names the keys the processors write.
        "TelemetryKitDevice", "TelemetryKitAppInfo", "TelemetryKitLocale", "TelemetryKitCalendar",
        "TelemetryKitAccessibility", "TelemetryKitSessionTracking", "TelemetryKitTrialConversion",
    ]
)

// MARK: - Storage (Plugins/Storage/<Name>)

targets += [
    .target(
        name: "TelemetryKitFileStorageSupport",
        dependencies: ["TelemetryKit"],
        path: "Plugins/Storage/FileSupport"
    ),
    .target(
        name: "TelemetryKitPlistStorage",
        dependencies: ["TelemetryKit", "TelemetryKitFileStorageSupport"],
        path: "Plugins/Storage/Plist"
    ),
    .target(
        name: "TelemetryKitJSONFileStorage",
        dependencies: ["TelemetryKit", "TelemetryKitFileStorageSupport"],
        path: "Plugins/Storage/JSONFile"
    ),
    .testTarget(
        name: "TelemetryKitFileStorageSupportTests",
        dependencies: ["TelemetryKitFileStorageSupport", "TelemetryKitTesting"],
        path: "Tests/TelemetryKitFileStorageSupportTests"
    ),
    // One suite runs the shared tests for both file storages; each format has its own few tests.
    .testTarget(
        name: "TelemetryKitFileStorageTests",
        dependencies: [
            "TelemetryKitPlistStorage", "TelemetryKitJSONFileStorage", "TelemetryKitFileStorageSupport",
            "TelemetryKitTesting",
        ],
        path: "Tests/TelemetryKitFileStorageTests"
    ),
]

// MARK: - Caches (Plugins/Caches/<Name>)

/// Platforms whose SDK has no `SQLite3` module: SQLite comes from the system library there.
let sqliteSystemLibraryPlatforms: [Platform] = [.linux, .android, .windows, .openbsd]

targets += [
    // The system SQLite on Linux (libsqlite3-dev); Apple platforms import their SDK's SQLite3.
    .systemLibrary(
        name: "CSQLite",
        path: "Plugins/SystemLibraries/CSQLite",
        pkgConfig: "sqlite3",
        providers: [.apt(["libsqlite3-dev"]), .yum(["sqlite-devel"])]
    ),
    .target(
        name: "TelemetryKitCacheSupport",
        dependencies: ["TelemetryKit"],
        path: "Plugins/Caches/Support"
    ),
    // Sends numbered events through a TelemetryClient with a durable cache until killed;
    // the durability tests run it and SIGKILL it (part of the `Tools` set, no extra dependencies).
    .executableTarget(
        name: "telemetrykit-crashtester",
        dependencies: [
            "TelemetryKit",
            "TelemetryKitSQLiteCache",
            "TelemetryKitJSONLinesCache",
        ],
        path: "Tests/CrashTester"
    ),
    .testTarget(
        name: "TelemetryKitCacheSupportTests",
        dependencies: ["TelemetryKitCacheSupport", "TelemetryKitTesting"],
        path: "Tests/TelemetryKitCacheSupportTests"
    ),
    .testTarget(
        name: "TelemetryKitCacheDurabilityTests",
        dependencies: [
            "TelemetryKit",
            "TelemetryKitTesting",
            "TelemetryKitSQLiteCache",
            "TelemetryKitJSONLinesCache",
            "telemetrykit-crashtester",
            // The upgrade tests look into a converted database.
            .target(name: "CSQLite", condition: .when(platforms: sqliteSystemLibraryPlatforms)),
        ],
        path: "Tests/TelemetryKitCacheDurabilityTests",
        // Files written by earlier on-disk formats: the upgrade tests read them.
        resources: [.copy("Fixtures")]
    ),
]

targets += plugin(
    "SQLiteCache",
    path: "Plugins/Caches/SQLite",
    dependencies: [
        "TelemetryKitCacheSupport",
        .target(name: "CSQLite", condition: .when(platforms: sqliteSystemLibraryPlatforms)),
    ],
    testDependencies: [.target(name: "CSQLite", condition: .when(platforms: sqliteSystemLibraryPlatforms))]
)
targets += plugin("JSONLinesCache", path: "Plugins/Caches/JSONLines", dependencies: ["TelemetryKitCacheSupport"])

// MARK: - Transmitters (Plugins/Transmitters/<Name>)

targets += [
    // The system zlib, for gzip request bodies (zlib1g-dev on Debian; built into Apple platforms).
    .systemLibrary(
        name: "CZlib",
        path: "Plugins/SystemLibraries/CZlib",
        pkgConfig: "zlib",
        providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]
    ),
    // The connections and collector helpers shared by the tests that talk to the loopback
    // collector (HTTP round trips, IntegrationTests); empty without the Tools trait.
    .target(
        name: "TelemetryKitHTTPTestSupport",
        dependencies: [
            "TelemetryKitHTTP",
            .target(name: "TelemetryKitCollector", condition: .when(traits: ["Tools"])),
        ],
        path: "Tests/TelemetryKitHTTPTestSupport"
    ),
]

// The transmitter against a stub connection; the round trips through the collector only
// with the Tools trait.
targets += plugin(
    "HTTP",
    path: "Plugins/Transmitters/HTTP",
    dependencies: ["CZlib"],
    testDependencies: [
        // JSONValue, to check request bodies by JSON type.
        "TelemetryKitTransformations",
        .target(name: "TelemetryKitHTTPTestSupport", condition: .when(traits: ["Tools"])),
        .target(name: "TelemetryKitCollector", condition: .when(traits: ["Tools"])),
    ]
)
targets += plugin("Console", path: "Plugins/Transmitters/Console")

// MARK: AsyncHTTPClient connection (trait AsyncHTTPClient)

// An HTTPConnection on swift-server's AsyncHTTPClient: a connection pool on SwiftNIO that
// sees a server's close as it happens. The target always builds; without the trait it is
// empty and async-http-client is never fetched (it adds minutes to a clean build).

targets += plugin(
    "AsyncHTTPClient",
    path: "Plugins/Transmitters/AsyncHTTPClient",
    dependencies: [
        "TelemetryKitHTTP",
        .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["AsyncHTTPClient"])),
        .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
        .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["AsyncHTTPClient"])),
    ],
    testDependencies: [
        "TelemetryKitHTTP",
        .target(name: "TelemetryKitCollector", condition: .when(traits: ["Tools"])),
        .product(name: "AsyncHTTPClient", package: "async-http-client", condition: .when(traits: ["AsyncHTTPClient"])),
    ]
)

// The tests that talk to the collector run their matrix over this connection too when the
// trait is on.
if let httpTestSupport = targets.first(where: { $0.name == "TelemetryKitHTTPTestSupport" }) {
    httpTestSupport.dependencies.append(
        .target(name: "TelemetryKitAsyncHTTPClient", condition: .when(traits: ["AsyncHTTPClient"]))
    )
}

// MARK: - Transformations (Plugins/Transformations)

targets += plugin("Transformations", path: "Plugins/Transformations/Engine")

// MARK: - JavaScript transformer (Plugins/Transformations/JavaScript)

// JavaScriptCore's C API: the system framework on Apple platforms (none on watchOS, where the
// transformer passes events unchanged); on Linux Debian's WebKitGTK build
// (libjavascriptcoregtk-4.0-dev) through a system-library target.
targets += [
    .systemLibrary(
        name: "CJavaScriptCore",
        path: "Plugins/SystemLibraries/CJavaScriptCore",
        pkgConfig: "javascriptcoregtk-4.0",
        providers: [.apt(["libjavascriptcoregtk-4.0-dev"])]
    )
]
targets += plugin(
    "JavaScript",
    path: "Plugins/Transformations/JavaScript",
    dependencies: [
        "TelemetryKitTransformations",
        .target(name: "CJavaScriptCore", condition: .when(platforms: [.linux])),
    ],
    testDependencies: ["TelemetryKitTransformations"],
    linkerSettings: [
        .linkedFramework("JavaScriptCore", .when(platforms: [.macOS, .iOS, .tvOS, .visionOS, .macCatalyst]))
    ]
)

// MARK: - Composable analytics and bridges (Plugins/Composable, Plugins/SwiftLog)

targets += plugin(
    "Composable",
    path: "Plugins/Composable",
    dependencies: [
        "TelemetryKitPresets",
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
        .product(name: "Dependencies", package: "swift-dependencies", condition: .when(traits: ["Dependencies"])),
    ],
    testDependencies: [
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
        .product(name: "Dependencies", package: "swift-dependencies", condition: .when(traits: ["Dependencies"])),
    ]
)
targets += plugin(
    "SwiftLog",
    path: "Plugins/SwiftLog",
    dependencies: [.product(name: "Logging", package: "swift-log", condition: .when(traits: ["SwiftLog"]))],
    testDependencies: [
        .product(name: "Logging", package: "swift-log", condition: .when(traits: ["SwiftLog"])),
        .product(name: "InMemoryLogging", package: "swift-log", condition: .when(traits: ["SwiftLog"])),
    ]
)

// MARK: - Server lifecycle (Plugins/ServiceLifecycle, trait ServiceLifecycle)

// A `Service` that runs a TelemetryClient in a swift-service-lifecycle `ServiceGroup`.

targets += plugin(
    "ServiceLifecycle",
    path: "Plugins/ServiceLifecycle",
    dependencies: [
        .product(
            name: "ServiceLifecycle",
            package: "swift-service-lifecycle",
            condition: .when(traits: ["ServiceLifecycle"])
        )
    ],
    testDependencies: [
        .product(
            name: "ServiceLifecycle",
            package: "swift-service-lifecycle",
            condition: .when(traits: ["ServiceLifecycle"])
        ),
        .product(name: "Logging", package: "swift-log", condition: .when(traits: ["ServiceLifecycle"])),
    ]
)

// MARK: - Tools (trait Tools: collector, CLI)

targets += [
    .target(
        name: "TelemetryKitCollector",
        dependencies: [
            "TelemetryKit",
            // SplitMix64, the seeded generator behind `RandomFaults`.
            .target(name: "TelemetryKitTesting", condition: .when(traits: ["Tools"])),
            "CZlib",
            .product(name: "NIOCore", package: "swift-nio", condition: .when(traits: ["Tools"])),
            .product(name: "NIOPosix", package: "swift-nio", condition: .when(traits: ["Tools"])),
            .product(name: "NIOHTTP1", package: "swift-nio", condition: .when(traits: ["Tools"])),
        ],
        path: "Modules/TelemetryKitCollector"
    ),
    // The `telemetrykit` executable. It always builds; without the Tools trait it only says
    // how to build the real one.
    .executableTarget(
        name: "telemetrykit",
        dependencies: [
            .product(name: "ArgumentParser", package: "swift-argument-parser", condition: .when(traits: ["Tools"])),
            .target(name: "TelemetryKitCollector", condition: .when(traits: ["Tools"])),
            .target(name: "TelemetryKitHTTP", condition: .when(traits: ["Tools"])),
            .target(name: "TelemetryKitConsole", condition: .when(traits: ["Tools"])),
            .target(name: "TelemetryKitDefaults", condition: .when(traits: ["Tools"])),
            .target(name: "TelemetryKitSQLiteCache", condition: .when(traits: ["Tools"])),
            .target(name: "TelemetryKitTransformations", condition: .when(traits: ["Tools"])),
        ],
        path: "Modules/TelemetryKitCLI"
    ),
    .testTarget(
        name: "TelemetryKitCollectorTests",
        dependencies: [
            "TelemetryKit",
            "TelemetryKitHTTP",
            .target(name: "TelemetryKitCollector", condition: .when(traits: ["Tools"])),
        ],
        path: "Tests/TelemetryKitCollectorTests"
    ),
    .testTarget(
        name: "TelemetryKitCLITests",
        dependencies: [
            "TelemetryKit",
            "TelemetryKitTesting",
            .target(name: "TelemetryKitCollector", condition: .when(traits: ["Tools"])),
        ],
        path: "Tests/TelemetryKitCLITests"
    ),
]

// MARK: - Assembly

defaultPluginModules += [
    "TelemetryKitPreviewFilter", "TelemetryKitDefaultParameters", "TelemetryKitDefaultPrefix",
    "TelemetryKitValidation", "TelemetryKitTestMode", "TelemetryKitUserIdentifier", "TelemetryKitSessionTracking",
    "TelemetryKitDevice",
    "TelemetryKitAppInfo", "TelemetryKitLocale", "TelemetryKitCalendar", "TelemetryKitAccessibility",
    "TelemetryKitTrialConversion", "TelemetryKitPlistStorage", "TelemetryKitSQLiteCache",
    "TelemetryKitHTTP", "TelemetryKitPresets",
]

targets += [
    .target(
        name: "TelemetryKitDefaults",
        dependencies: ["TelemetryKit"] + defaultPluginModules,
        path: "Modules/TelemetryKitDefaults"
    ),
    .testTarget(
        name: "TelemetryKitDefaultsTests",
        dependencies: [
            "TelemetryKitDefaults", "TelemetryKitTesting", "TopLevelAwaitCheck",
            .target(name: "TelemetryKitCollector", condition: .when(traits: ["Tools"])),
        ],
        path: "Tests/TelemetryKitDefaultsTests"
    ),
    // End to end: the default pipeline, a durable cache, the HTTP transmitter and, with the
    // Tools trait, the loopback collector.
    .testTarget(
        name: "IntegrationTests",
        dependencies: [
            "TelemetryKitDefaults", "TelemetryKitTesting",
            .target(name: "TelemetryKitHTTPTestSupport", condition: .when(traits: ["Tools"])),
            .target(name: "TelemetryKitCollector", condition: .when(traits: ["Tools"])),
        ],
        path: "Tests/IntegrationTests"
    ),
    // Top-level code that checks `await Telemetry.event(...)` waits (run by the Defaults tests).
    .executableTarget(
        name: "TopLevelAwaitCheck",
        dependencies: ["TelemetryKitDefaults", "TelemetryKitTesting"],
        path: "Tests/TopLevelAwaitCheck"
    ),
]

/// What an app can depend on. Support libraries (`TelemetryKitCacheSupport`,
/// `TelemetryKitFileStorageSupport`), system-library shims and test executables are not
/// products: they are reached through the products that use them.
let libraryProducts: [String] = [
    "TelemetryKit", "TelemetryKitDefaults", "TelemetryKitPresets", "TelemetryKitTesting",
    "TelemetryKitPreviewFilter", "TelemetryKitDefaultParameters", "TelemetryKitDefaultPrefix", "TelemetryKitValidation",
    "TelemetryKitTestMode", "TelemetryKitUserIdentifier", "TelemetryKitSessionTracking", "TelemetryKitDevice",
    "TelemetryKitAppInfo", "TelemetryKitLocale", "TelemetryKitCalendar", "TelemetryKitAccessibility",
    "TelemetryKitTrialConversion", "TelemetryKitConsent",
    "TelemetryKitPlistStorage", "TelemetryKitJSONFileStorage",
    "TelemetryKitSQLiteCache", "TelemetryKitJSONLinesCache",
    "TelemetryKitHTTP", "TelemetryKitAsyncHTTPClient", "TelemetryKitConsole",
    "TelemetryKitTransformations", "TelemetryKitJavaScript",
    "TelemetryKitComposable", "TelemetryKitSwiftLog", "TelemetryKitServiceLifecycle", "TelemetryKitCollector",
]

let package = Package(
    name: "TelemetryKit",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: libraryProducts.map { .library(name: $0, targets: [$0]) }
        + [.executable(name: "telemetrykit", targets: ["telemetrykit"])],
    traits: [
        .trait(
            name: "Tools",
            description: "The dev collector and the `telemetrykit` CLI (swift-argument-parser, swift-nio)."
        ),
        .trait(name: "SwiftLog", description: "TelemetryKitSwiftLog: route SDK diagnostics into swift-log."),
        .trait(name: "Dependencies", description: "AnalyticsClient as a swift-dependencies DependencyKey."),
        .trait(
            name: "ServiceLifecycle",
            description: "TelemetryKitServiceLifecycle: run a TelemetryClient as a swift-service-lifecycle Service."
        ),
        .trait(
            name: "AsyncHTTPClient",
            description: "TelemetryKitAsyncHTTPClient: an HTTPConnection on swift-server's async-http-client."
        ),
        .default(enabledTraits: []),
    ],
    dependencies: dependencies,
    targets: targets
)

// MARK: - Fuzzing (Tests/Fuzz, run by .ci/fuzz)

// libFuzzer targets for the readers of outside bytes, added after the product list on purpose:
// they are not products. Each executable is only `LLVMFuzzerTestOneInput` (libFuzzer brings
// `main` under `swift build --sanitize=fuzzer`; a plain build links an empty program, so
// `swift build --build-tests` builds them without the fuzzer). The checks live in one library
// that the corpus tests run too, so every committed input is replayed by the normal suite.
let fuzzedReaders = ["EventJSON", "TransformationSettings", "JSONLinesJournal", "IngestRequest"]

package.targets += [
    .target(
        name: "TelemetryKitFuzzChecks",
        dependencies: [
            "TelemetryKit",
            "TelemetryKitTransformations",
            "TelemetryKitJSONLinesCache",
            "TelemetryKitHTTP",
            .target(name: "TelemetryKitCollector", condition: .when(traits: ["Tools"])),
        ],
        path: "Tests/Fuzz/Checks"
    ),
    .testTarget(
        name: "TelemetryKitFuzzCorpusTests",
        dependencies: ["TelemetryKitFuzzChecks"],
        path: "Tests/Fuzz/CorpusTests"
    ),
]
package.targets += fuzzedReaders.map { reader in
    .executableTarget(name: "Fuzz\(reader)", dependencies: ["TelemetryKitFuzzChecks"], path: "Tests/Fuzz/\(reader)")
}

for target in package.targets where target.type != .system && target.type != .binary && target.type != .plugin {
    var settings = target.swiftSettings ?? []
    settings.append(.swiftLanguageMode(.v6))
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    target.swiftSettings = settings
}
