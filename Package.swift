// swift-tools-version: 6.2

import CompilerPluginSupport
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
        // Trait TypedEvents: the `@TelemetryEvent` macro's compiler plugin (and its expansion tests).
        // 603 is the release for Swift 6.3: 602's plugin reports an "Internal Error" when the 6.3
        // compiler ends the session with an empty message.
        .package(url: "https://github.com/swiftlang/swift-syntax.git", from: "603.0.1"),
        // Trait OpenTelemetry: the trace and span of the request an event was sent in
        // (`Instrumentation` holds `ServiceContext` since 1.7).
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),
        // Trait Metrics: the client's counters as swift-metrics.
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
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
        dependencies: ["TelemetryKit", "TelemetryKitInMemoryStorage"],
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
// Its cross-process tests share one storage file between two instances.
targets += processor("UserIdentifier", testDependencies: ["TelemetryKitPlistStorage"])
// Its cross-process tests share one storage file between two instances.
targets += processor("SessionTracking", testDependencies: ["TelemetryKitPlistStorage"])
targets += processor("Device")
targets += processor("AppInfo")
targets += processor("Locale")
targets += processor("Calendar")
targets += processor("Accessibility")
targets += processor("TrialConversion")
targets += processor("Consent")
// Checks untyped events against a `TrackingPlan` (core values); needs no macro, no trait.
targets += processor("TrackingPlan")

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

// In memory: tests, previews and servers that must not write to disk.
targets += plugin("InMemoryStorage", path: "Plugins/Storage/InMemory")

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
    // Writes numbered keys into a storage file; the multi-process storage tests run several.
    .executableTarget(
        name: "telemetrykit-storage-writer",
        dependencies: ["TelemetryKit", "TelemetryKitPlistStorage", "TelemetryKitJSONFileStorage"],
        path: "Tests/StorageWriter"
    ),
    // One suite runs the shared tests for both file storages; each format has its own few tests.
    .testTarget(
        name: "TelemetryKitFileStorageTests",
        dependencies: [
            "TelemetryKitPlistStorage", "TelemetryKitJSONFileStorage", "TelemetryKitFileStorageSupport",
            "TelemetryKitTesting", "telemetrykit-storage-writer",
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
            "TelemetryKitInMemoryStorage",
            "TelemetryKitSQLiteCache",
            "TelemetryKitJSONLinesCache",
            // --transmitter http: the multi-process test posts to the collector.
            "TelemetryKitHTTP",
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
            // The multi-process test sends to the collector (with the Tools trait only).
            .target(name: "TelemetryKitCollector", condition: .when(traits: ["Tools"])),
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

// MARK: OpenTelemetry (trait OpenTelemetry)

// OTLP/HTTP log export from the durable queue, on the HTTP plugin's connection and gzip, and
// the trace correlation of events sent inside a traced request. Without the trait the target
// is empty and swift-distributed-tracing is never fetched. Its tests decode every body with
// the OpenTelemetry project's Python classes (pip `opentelemetry-proto`, installed by
// scripts/install-system-packages.sh) in Tests/OTLPReceiver/otlp_receiver.py.

targets += plugin(
    "OpenTelemetry",
    path: "Plugins/Transmitters/OpenTelemetry",
    dependencies: [
        "TelemetryKitHTTP",
        .product(
            name: "Instrumentation",
            package: "swift-distributed-tracing",
            condition: .when(traits: ["OpenTelemetry"])
        ),
    ],
    testDependencies: [
        "TelemetryKitHTTP",
        // The end-to-end test sends from a durable queue.
        "TelemetryKitSQLiteCache",
        .product(
            name: "Instrumentation",
            package: "swift-distributed-tracing",
            condition: .when(traits: ["OpenTelemetry"])
        ),
    ]
)

// MARK: - Metrics (Plugins/Metrics, trait Metrics)

// The client's counters (TelemetryStats) as swift-metrics counters and gauges, per destination.
targets += plugin(
    "Metrics",
    path: "Plugins/Metrics",
    dependencies: [.product(name: "CoreMetrics", package: "swift-metrics", condition: .when(traits: ["Metrics"]))],
    testDependencies: [
        .product(name: "CoreMetrics", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
        .product(name: "MetricsTestKit", package: "swift-metrics", condition: .when(traits: ["Metrics"])),
    ]
)

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

// MARK: - Typed events (Plugins/TypedEvents, trait TypedEvents)

// `@TelemetryEvent` conforms a struct or an enum to the core's `TypedEvent`. The macro's
// compiler plugin needs swift-syntax, referenced only under the trait: without it the targets
// build empty and swift-syntax is never fetched. `TypedEvent`, `TrackingPlan` and the
// processor live outside (core, TelemetryKitTrackingPlan), so they never need swift-syntax.
/// swift-syntax's products, only under the trait.
func swiftSyntax(_ products: String...) -> [Target.Dependency] {
    products.map { .product(name: $0, package: "swift-syntax", condition: .when(traits: ["TypedEvents"])) }
}
let typedEventsMacros: Target.Dependency = .target(
    name: "TelemetryKitTypedEventsMacros",
    condition: .when(traits: ["TypedEvents"])
)
targets += [
    .macro(
        name: "TelemetryKitTypedEventsMacros",
        dependencies: swiftSyntax(
            "SwiftSyntax",
            "SwiftSyntaxBuilder",
            "SwiftSyntaxMacros",
            "SwiftDiagnostics",
            "SwiftParser",
            "SwiftCompilerPlugin"
        ),
        path: "Plugins/TypedEvents/Macros"
    ),
    .target(
        name: "TelemetryKitTypedEvents",
        dependencies: ["TelemetryKit", typedEventsMacros],
        path: "Plugins/TypedEvents/Library"
    ),
    // The expansions and every diagnostic, pinned.
    .testTarget(
        name: "TelemetryKitTypedEventsMacrosTests",
        dependencies: [typedEventsMacros]
            + swiftSyntax(
                "SwiftSyntax",
                "SwiftSyntaxMacros",
                "SwiftSyntaxMacroExpansion",
                "SwiftDiagnostics",
                "SwiftSyntaxMacrosGenericTestSupport"
            ),
        path: "Tests/TelemetryKitTypedEventsMacrosTests"
    ),
    // Expanded events at the client's, EventInput's and AnalyticsClient's call sites, byte for
    // byte against the untyped call (the facade's are in the facade's serialized suite).
    .testTarget(
        name: "TelemetryKitTypedEventsTests",
        dependencies: [
            "TelemetryKitTypedEvents", "TelemetryKitTrackingPlan", "TelemetryKitTesting", "TelemetryKitComposable",
            "TelemetryKitHTTP",
        ],
        path: "Tests/TelemetryKitTypedEventsTests"
    ),
]

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
            .target(name: "TelemetryKitInMemoryStorage", condition: .when(traits: ["Tools"])),
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
    "TelemetryKitTrialConversion", "TelemetryKitInMemoryStorage", "TelemetryKitPlistStorage", "TelemetryKitSQLiteCache",
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
    "TelemetryKitTrialConversion", "TelemetryKitConsent", "TelemetryKitTrackingPlan", "TelemetryKitTypedEvents",
    "TelemetryKitInMemoryStorage", "TelemetryKitPlistStorage", "TelemetryKitJSONFileStorage",
    "TelemetryKitSQLiteCache", "TelemetryKitJSONLinesCache",
    "TelemetryKitHTTP", "TelemetryKitAsyncHTTPClient", "TelemetryKitConsole", "TelemetryKitOpenTelemetry",
    "TelemetryKitMetrics",
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
        .trait(
            name: "TypedEvents",
            description: "TelemetryKitTypedEvents: the @TelemetryEvent macro (swift-syntax)."
        ),
        .trait(
            name: "OpenTelemetry",
            description:
                "TelemetryKitOpenTelemetry: OTLP/HTTP log export and trace correlation (swift-distributed-tracing)."
        ),
        .trait(name: "Metrics", description: "TelemetryKitMetrics: the client's counters as swift-metrics."),
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
            "TelemetryKitInMemoryStorage",
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
