// swift-tools-version: 6.2

import CompilerPluginSupport
import PackageDescription

// TelemetryKit: an API core that plugins compile against, one client runtime, one target per
// plugin, and `TelemetryKitDefaults`, which assembles the default set. Folders: Modules/<Module>
// (the core, the runtime and what is layered on them), Support/<Module> (helpers the runtime and
// plugins share, not products), Plugins/<Kind>/<Name> (Plugins/Storage/Plist is
// TelemetryKitPlistStorage), Tests/<Target>, TestSupport/<Target> (what the tests run), Fuzz/,
// SystemLibraries/ (C shims).

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

// The DocC plugin for `.ci/docs` only (it sets TELEMETRYKIT_DOCS): a consumer never fetches it.
let documentationPlugin: [Package.Dependency] =
    Context.environment["TELEMETRYKIT_DOCS"] == nil
    // The API core: values and protocols, what a plugin compiles against.
    ? [] : [.package(url: "https://github.com/swiftlang/swift-docc-plugin", from: "1.5.0")]

let package = Package(
    name: "TelemetryKit",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: [
        .library(name: "TelemetryKit", targets: ["TelemetryKit"]),
        .library(name: "TelemetryKitClient", targets: ["TelemetryKitClient"]),
        .library(name: "TelemetryKitConventions", targets: ["TelemetryKitConventions"]),
        .library(name: "TelemetryKitTesting", targets: ["TelemetryKitTesting"]),
        .library(name: "TelemetryKitPreviewFilter", targets: ["TelemetryKitPreviewFilter"]),
        .library(name: "TelemetryKitDefaultParameters", targets: ["TelemetryKitDefaultParameters"]),
        .library(name: "TelemetryKitDefaultPrefix", targets: ["TelemetryKitDefaultPrefix"]),
        .library(name: "TelemetryKitValidation", targets: ["TelemetryKitValidation"]),
        .library(name: "TelemetryKitTestMode", targets: ["TelemetryKitTestMode"]),
        .library(name: "TelemetryKitUserIdentifier", targets: ["TelemetryKitUserIdentifier"]),
        .library(name: "TelemetryKitSessionTracking", targets: ["TelemetryKitSessionTracking"]),
        .library(name: "TelemetryKitDevice", targets: ["TelemetryKitDevice"]),
        .library(name: "TelemetryKitAppInfo", targets: ["TelemetryKitAppInfo"]),
        .library(name: "TelemetryKitLocale", targets: ["TelemetryKitLocale"]),
        .library(name: "TelemetryKitCalendar", targets: ["TelemetryKitCalendar"]),
        .library(name: "TelemetryKitAccessibility", targets: ["TelemetryKitAccessibility"]),
        .library(name: "TelemetryKitTrialConversion", targets: ["TelemetryKitTrialConversion"]),
        .library(name: "TelemetryKitConsent", targets: ["TelemetryKitConsent"]),
        .library(name: "TelemetryKitTrackingPlan", targets: ["TelemetryKitTrackingPlan"]),
        .library(name: "TelemetryKitInMemoryStorage", targets: ["TelemetryKitInMemoryStorage"]),
        .library(name: "TelemetryKitPlistStorage", targets: ["TelemetryKitPlistStorage"]),
        .library(name: "TelemetryKitJSONFileStorage", targets: ["TelemetryKitJSONFileStorage"]),
        .library(name: "TelemetryKitSQLiteCache", targets: ["TelemetryKitSQLiteCache"]),
        .library(name: "TelemetryKitJSONLinesCache", targets: ["TelemetryKitJSONLinesCache"]),
        .library(name: "TelemetryKitHTTP", targets: ["TelemetryKitHTTP"]),
        .library(name: "TelemetryKitConsole", targets: ["TelemetryKitConsole"]),
        .library(name: "TelemetryKitAsyncHTTPClient", targets: ["TelemetryKitAsyncHTTPClient"]),
        .library(name: "TelemetryKitOpenTelemetry", targets: ["TelemetryKitOpenTelemetry"]),
        .library(name: "TelemetryKitTransformations", targets: ["TelemetryKitTransformations"]),
        .library(name: "TelemetryKitJavaScript", targets: ["TelemetryKitJavaScript"]),
        .library(name: "TelemetryKitPresets", targets: ["TelemetryKitPresets"]),
        .library(name: "TelemetryKitComposable", targets: ["TelemetryKitComposable"]),
        .library(name: "TelemetryKitSwiftLog", targets: ["TelemetryKitSwiftLog"]),
        .library(name: "TelemetryKitServiceLifecycle", targets: ["TelemetryKitServiceLifecycle"]),
        .library(name: "TelemetryKitMetrics", targets: ["TelemetryKitMetrics"]),
        .library(name: "TelemetryKitTypedEvents", targets: ["TelemetryKitTypedEvents"]),
        .library(name: "TelemetryKitDefaults", targets: ["TelemetryKitDefaults"]),
        .library(name: "TelemetryKitCollector", targets: ["TelemetryKitCollector"]),
        .executable(name: "telemetrykit", targets: ["telemetrykit"]),
    ],
    traits: [
        .trait(
            name: "Tools",
            description: "The dev collector and the `telemetrykit` CLI (swift-argument-parser, swift-nio)."
        ),
        .trait(name: "SwiftLog", description: "TelemetryKitSwiftLog: route SDK diagnostics into swift-log."),
        .trait(name: "Dependencies", description: "AnalyticsClient as a swift-dependencies DependencyKey."),
        .trait(
            name: "ServiceLifecycle",
            description: "TelemetryKitServiceLifecycle: a client as a swift-service-lifecycle Service."
        ),
        .trait(
            name: "AsyncHTTPClient",
            description: "TelemetryKitAsyncHTTPClient: an HTTPConnection on async-http-client."
        ),
        .trait(name: "TypedEvents", description: "TelemetryKitTypedEvents: the @TelemetryEvent macro (swift-syntax)."),
        .trait(
            name: "OpenTelemetry",
            description: "TelemetryKitOpenTelemetry: OTLP/HTTP export and trace correlation."
        ),
        .trait(name: "Metrics", description: "TelemetryKitMetrics: the client's counters as swift-metrics."),
        .default(enabledTraits: []),
    ],
    // Only swift-crypto (SHA-256 on Linux) and IssueReporting (TelemetryKitComposable's test
    // helpers) are used without a trait; the others only under the traits beside them, so they are
    // fetched only when a consumer enables one. swift-syntax 603 is the release for Swift 6.3
    // (602's macro plugin reports an "Internal Error" there).
    dependencies: documentationPlugin + [
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2"),
        .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay.git", from: "1.13.1"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),  // SwiftLog, ServiceLifecycle
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),  // Tools, AsyncHTTPClient
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),  // Tools
        .package(url: "https://github.com/swiftlang/swift-syntax.git", from: "603.0.1"),  // TypedEvents
        .package(url: "https://github.com/apple/swift-distributed-tracing.git", from: "1.7.3"),  // OpenTelemetry
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),  // Metrics
        // Without its default traits.
        .package(url: "https://github.com/pointfreeco/swift-dependencies.git", from: "1.17.1", traits: []),
    ],
    targets: [
        // MARK: The API core, the runtime, typed events, the names TelemetryDeck knows
        .target(name: "TelemetryKit", dependencies: [], path: "Modules/TelemetryKit", swiftSettings: settings),
        .target(
            name: "TelemetryKitClient",
            dependencies: ["TelemetryKit", "TelemetryKitSupport", "TelemetryKitTypedEvents"],
            path: "Modules/TelemetryKitClient",
            swiftSettings: settings
        ),
        // Typed events: the client and TrackingPlan use them; `@TelemetryEvent` only with the trait, so
        // nothing else needs swift-syntax.
        .target(
            name: "TelemetryKitTypedEvents",
            dependencies: ["TelemetryKit", .target(name: "TelemetryKitTypedEventsMacros", condition: whenTypedEvents)],
            path: "Modules/TelemetryKitTypedEvents",
            swiftSettings: settings
        ),
        .macro(
            name: "TelemetryKitTypedEventsMacros",
            dependencies: [
                .product(name: "SwiftSyntax", package: "swift-syntax", condition: whenTypedEvents),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax", condition: whenTypedEvents),
                .product(name: "SwiftDiagnostics", package: "swift-syntax", condition: whenTypedEvents),
                .product(name: "SwiftSyntaxBuilder", package: "swift-syntax", condition: whenTypedEvents),
                .product(name: "SwiftParser", package: "swift-syntax", condition: whenTypedEvents),
                .product(name: "SwiftCompilerPlugin", package: "swift-syntax", condition: whenTypedEvents),
            ],
            path: "Modules/TelemetryKitTypedEventsMacros",
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitConventions",
            dependencies: ["TelemetryKit"],
            path: "Modules/TelemetryKitConventions",
            swiftSettings: settings
        ),
        // MARK: The composition target, the testing kit, the development collector and the CLI
        // Assembles the default set: the plugins among its dependencies are what it re-exports and
        // builds (DefaultPluginListTests checks).
        .target(
            name: "TelemetryKitDefaults",
            dependencies: [
                "TelemetryKit", "TelemetryKitClient", "TelemetryKitSupport", "TelemetryKitTypedEvents",
                "TelemetryKitPreviewFilter", "TelemetryKitDefaultParameters", "TelemetryKitDefaultPrefix",
                "TelemetryKitValidation", "TelemetryKitTestMode", "TelemetryKitUserIdentifier",
                "TelemetryKitSessionTracking", "TelemetryKitDevice", "TelemetryKitAppInfo", "TelemetryKitLocale",
                "TelemetryKitCalendar", "TelemetryKitAccessibility", "TelemetryKitTrialConversion",
                "TelemetryKitInMemoryStorage", "TelemetryKitPlistStorage", "TelemetryKitSQLiteCache",
                "TelemetryKitHTTP", "TelemetryKitPresets",
            ],
            path: "Modules/TelemetryKitDefaults",
            exclude: privacyManifest.exclude,
            resources: privacyManifest.resources,
            swiftSettings: settings
        ),
        // Test doubles and conformance suites for apps' and plugin authors' tests.
        .target(
            name: "TelemetryKitTesting",
            dependencies: ["TelemetryKit", "TelemetryKitClient", "TelemetryKitSupport", "TelemetryKitInMemoryStorage"],
            path: "Modules/TelemetryKitTesting",
            exclude: privacyManifest.exclude,
            resources: privacyManifest.resources,
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitCollector",
            dependencies: [
                "TelemetryKit", "TelemetryKitSupport", "CZlib", "TelemetryKitTrackingPlan",
                .product(name: "NIOCore", package: "swift-nio", condition: whenTools),
                .product(name: "NIOPosix", package: "swift-nio", condition: whenTools),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: whenTools),
            ],
            path: "Modules/TelemetryKitCollector",
            swiftSettings: settings
        ),
        // The `telemetrykit` command line; without the Tools trait it only says how to build it.
        .executableTarget(
            name: "telemetrykit",
            dependencies: [
                .target(name: "TelemetryKitCollector", condition: whenTools),
                .target(name: "TelemetryKitHTTP", condition: whenTools),
                .target(name: "TelemetryKitConsole", condition: whenTools),
                .target(name: "TelemetryKitDefaults", condition: whenTools),
                .target(name: "TelemetryKitSQLiteCache", condition: whenTools),
                .target(name: "TelemetryKitSupport", condition: whenTools),
                .target(name: "TelemetryKitTransformations", condition: whenTools),
                .target(name: "TelemetryKitTrackingPlan", condition: whenTools),
                .product(name: "ArgumentParser", package: "swift-argument-parser", condition: whenTools),
            ],
            path: "Modules/telemetrykit",
            swiftSettings: settings
        ),
        // MARK: Support libraries: `package` helpers shared by the runtime and plugins, not products
        .target(
            name: "TelemetryKitSupport",
            dependencies: ["TelemetryKit", .product(name: "Crypto", package: "swift-crypto", condition: onLinux)],
            path: "Support/TelemetryKitSupport",
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitFileStorageSupport",
            dependencies: ["TelemetryKit", "TelemetryKitSupport"],
            path: "Support/TelemetryKitFileStorageSupport",
            exclude: privacyManifest.exclude,
            resources: privacyManifest.resources,
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitCacheSupport",
            dependencies: ["TelemetryKit", "TelemetryKitSupport"],
            path: "Support/TelemetryKitCacheSupport",
            exclude: privacyManifest.exclude,
            resources: privacyManifest.resources,
            swiftSettings: settings
        ),
        // MARK: Processors, in the default pipeline's order, then the others
        .target(
            name: "TelemetryKitPreviewFilter",
            dependencies: ["TelemetryKit", "TelemetryKitConventions", "TelemetryKitSupport"],
            path: "Plugins/Processors/PreviewFilter",
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitDefaultParameters",
            dependencies: ["TelemetryKit", "TelemetryKitConventions", "TelemetryKitSupport"],
            path: "Plugins/Processors/DefaultParameters",
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitDefaultPrefix",
            dependencies: ["TelemetryKit", "TelemetryKitConventions", "TelemetryKitSupport"],
            path: "Plugins/Processors/DefaultPrefix",
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitValidation",
            dependencies: ["TelemetryKit", "TelemetryKitConventions", "TelemetryKitSupport"],
            path: "Plugins/Processors/Validation",
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitTestMode",
            dependencies: ["TelemetryKit", "TelemetryKitConventions", "TelemetryKitSupport"],
            path: "Plugins/Processors/TestMode",
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitUserIdentifier",
            dependencies: ["TelemetryKit", "TelemetryKitConventions", "TelemetryKitSupport"],
            path: "Plugins/Processors/UserIdentifier",
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitSessionTracking",
            dependencies: ["TelemetryKit", "TelemetryKitConventions", "TelemetryKitSupport"],
            path: "Plugins/Processors/SessionTracking",
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitDevice",
            dependencies: ["TelemetryKit", "TelemetryKitConventions", "TelemetryKitSupport"],
            path: "Plugins/Processors/Device",
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitAppInfo",
            dependencies: ["TelemetryKit", "TelemetryKitConventions", "TelemetryKitSupport"],
            path: "Plugins/Processors/AppInfo",
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitLocale",
            dependencies: ["TelemetryKit", "TelemetryKitConventions", "TelemetryKitSupport"],
            path: "Plugins/Processors/Locale",
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitCalendar",
            dependencies: ["TelemetryKit", "TelemetryKitConventions", "TelemetryKitSupport"],
            path: "Plugins/Processors/Calendar",
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitAccessibility",
            dependencies: ["TelemetryKit", "TelemetryKitConventions", "TelemetryKitSupport"],
            path: "Plugins/Processors/Accessibility",
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitTrialConversion",
            dependencies: ["TelemetryKit", "TelemetryKitConventions", "TelemetryKitSupport"],
            path: "Plugins/Processors/TrialConversion",
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitConsent",
            dependencies: ["TelemetryKit", "TelemetryKitConventions", "TelemetryKitSupport"],
            path: "Plugins/Processors/Consent",
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitTrackingPlan",
            dependencies: [
                "TelemetryKit", "TelemetryKitConventions", "TelemetryKitSupport", "TelemetryKitTypedEvents",
            ],
            path: "Plugins/Processors/TrackingPlan",
            swiftSettings: settings
        ),
        // MARK: Storages, durable caches and transmitters
        .target(
            name: "TelemetryKitInMemoryStorage",
            dependencies: ["TelemetryKit", "TelemetryKitSupport"],
            path: "Plugins/Storage/InMemory",
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitPlistStorage",
            dependencies: ["TelemetryKit", "TelemetryKitFileStorageSupport"],
            path: "Plugins/Storage/Plist",
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitJSONFileStorage",
            dependencies: ["TelemetryKit", "TelemetryKitFileStorageSupport"],
            path: "Plugins/Storage/JSONFile",
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitSQLiteCache",
            dependencies: [
                "TelemetryKit", "TelemetryKitSupport", "TelemetryKitCacheSupport",
                .target(name: "CSQLite", condition: withoutSDKSQLite),
            ],
            path: "Plugins/Caches/SQLite",
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitJSONLinesCache",
            dependencies: ["TelemetryKit", "TelemetryKitSupport", "TelemetryKitCacheSupport"],
            path: "Plugins/Caches/JSONLines",
            exclude: privacyManifest.exclude,
            resources: privacyManifest.resources,
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitHTTP",
            dependencies: ["TelemetryKit", "TelemetryKitSupport", "CZlib"],
            path: "Plugins/Transmitters/HTTP",
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitConsole",
            dependencies: ["TelemetryKit", "TelemetryKitSupport"],
            path: "Plugins/Transmitters/Console",
            swiftSettings: settings
        ),
        // AsyncHTTPClient and OpenTelemetry extend HTTP; each is empty without its trait.
        .target(
            name: "TelemetryKitAsyncHTTPClient",
            dependencies: [
                "TelemetryKit", "TelemetryKitHTTP",
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: whenAsyncHTTPClient),
                .product(name: "NIOCore", package: "swift-nio", condition: whenAsyncHTTPClient),
                .product(name: "NIOHTTP1", package: "swift-nio", condition: whenAsyncHTTPClient),
            ],
            path: "Plugins/Transmitters/AsyncHTTPClient",
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitOpenTelemetry",
            dependencies: [
                "TelemetryKit", "TelemetryKitSupport", "TelemetryKitHTTP",
                .product(name: "Instrumentation", package: "swift-distributed-tracing", condition: whenOpenTelemetry),
            ],
            path: "Plugins/Transmitters/OpenTelemetry",
            swiftSettings: settings
        ),
        // MARK: Transformations, v3's presets and bridges to other packages
        .target(
            name: "TelemetryKitTransformations",
            dependencies: ["TelemetryKit", "TelemetryKitSupport"],
            path: "Plugins/Transformations",
            swiftSettings: settings
        ),
        // JavaScriptCore is the system framework on Apple platforms, none on watchOS, Debian's WebKitGTK
        // build on Linux.
        .target(
            name: "TelemetryKitJavaScript",
            dependencies: [
                "TelemetryKit", "TelemetryKitSupport", "TelemetryKitTransformations",
                .target(name: "CJavaScriptCore", condition: onLinux),
            ],
            path: "Plugins/JavaScript",
            swiftSettings: settings,
            linkerSettings: [.linkedFramework("JavaScriptCore", .when(platforms: [.macOS, .iOS, .tvOS, .visionOS]))]
        ),
        .target(
            name: "TelemetryKitPresets",
            dependencies: ["TelemetryKit", "TelemetryKitClient", "TelemetryKitConventions"],
            path: "Plugins/Presets",
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitComposable",
            dependencies: [
                "TelemetryKit", "TelemetryKitClient", "TelemetryKitSupport", "TelemetryKitTypedEvents",
                "TelemetryKitPresets", .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
                .product(name: "Dependencies", package: "swift-dependencies", condition: whenDependencies),
            ],
            path: "Plugins/Composable",
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitSwiftLog",
            dependencies: ["TelemetryKit", .product(name: "Logging", package: "swift-log", condition: whenSwiftLog)],
            path: "Plugins/SwiftLog",
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitServiceLifecycle",
            dependencies: [
                "TelemetryKit", "TelemetryKitClient",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: whenServiceLifecycle),
            ],
            path: "Plugins/ServiceLifecycle",
            swiftSettings: settings
        ),
        .target(
            name: "TelemetryKitMetrics",
            dependencies: [
                "TelemetryKit", "TelemetryKitClient", "TelemetryKitSupport",
                .product(name: "CoreMetrics", package: "swift-metrics", condition: whenMetrics),
            ],
            path: "Plugins/Metrics",
            swiftSettings: settings
        ),
        // MARK: What the tests run, fuzzing, and the system libraries on Linux
        // Sends numbered events through a client with a durable cache until SIGKILLed.
        .executableTarget(
            name: "telemetrykit-crashtester",
            dependencies: [
                "TelemetryKitSQLiteCache", "TelemetryKitJSONLinesCache", "TelemetryKitClient",
                "TelemetryKitInMemoryStorage", "TelemetryKitHTTP",
            ],
            path: "TestSupport/telemetrykit-crashtester",
            swiftSettings: settings
        ),
        // Writes numbered keys into a storage file; the multi-process storage tests run several.
        .executableTarget(
            name: "telemetrykit-storage-writer",
            dependencies: ["TelemetryKitPlistStorage", "TelemetryKitJSONFileStorage"],
            path: "TestSupport/telemetrykit-storage-writer",
            swiftSettings: settings
        ),
        // Top-level code that checks `await Telemetry.event(...)` waits (run by the Defaults tests).
        .executableTarget(
            name: "TopLevelAwaitCheck",
            dependencies: ["TelemetryKitDefaults", "TelemetryKitTesting"],
            path: "TestSupport/TopLevelAwaitCheck",
            swiftSettings: settings
        ),
        // A CLI that makes a change and exits at once (run by the Defaults tests' exit tests).
        .executableTarget(
            name: "telemetrykit-quickexit",
            dependencies: ["TelemetryKitDefaults", "TelemetryKitConsent"],
            path: "TestSupport/telemetrykit-quickexit",
            swiftSettings: settings
        ),
        // Connections and collector helpers for the tests that talk to the loopback collector.
        .target(
            name: "TelemetryKitHTTPTestSupport",
            dependencies: [
                "TelemetryKitHTTP", .target(name: "TelemetryKitCollector", condition: whenTools),
                .target(name: "TelemetryKitAsyncHTTPClient", condition: whenAsyncHTTPClient),
            ],
            path: "TestSupport/TelemetryKitHTTPTestSupport",
            swiftSettings: settings
        ),
        // libFuzzer targets for the readers of outside bytes (.ci/fuzz); the checks live in one library
        // that the corpus tests run too, so every committed input is replayed.
        .target(
            name: "TelemetryKitFuzzChecks",
            dependencies: [
                "TelemetryKitSQLiteCache", "TelemetryKitJSONLinesCache", "TelemetryKitClient", "TelemetryKitSupport",
                "TelemetryKitHTTP", .target(name: "TelemetryKitCollector", condition: whenTools),
                "TelemetryKitInMemoryStorage", "TelemetryKitTransformations",
            ],
            path: "Fuzz/Checks",
            swiftSettings: settings
        ),
        .executableTarget(
            name: "FuzzEventJSON",
            dependencies: ["TelemetryKitFuzzChecks"],
            path: "Fuzz/EventJSON",
            swiftSettings: settings
        ),
        .executableTarget(
            name: "FuzzTransformationSettings",
            dependencies: ["TelemetryKitFuzzChecks"],
            path: "Fuzz/TransformationSettings",
            swiftSettings: settings
        ),
        .executableTarget(
            name: "FuzzJSONLinesJournal",
            dependencies: ["TelemetryKitFuzzChecks"],
            path: "Fuzz/JSONLinesJournal",
            swiftSettings: settings
        ),
        .executableTarget(
            name: "FuzzIngestRequest",
            dependencies: ["TelemetryKitFuzzChecks"],
            path: "Fuzz/IngestRequest",
            swiftSettings: settings
        ),
        // The system SQLite, zlib and JavaScriptCore on Linux; Apple platforms use their SDK's.
        .systemLibrary(
            name: "CSQLite",
            path: "SystemLibraries/CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CZlib",
            path: "SystemLibraries/CZlib",
            pkgConfig: "zlib",
            providers: [.apt(["zlib1g-dev"])]
        ),
        .systemLibrary(
            name: "CJavaScriptCore",
            path: "SystemLibraries/CJavaScriptCore",
            pkgConfig: "javascriptcoregtk-4.0",
            providers: [.apt(["libjavascriptcoregtk-4.0-dev"])]
        ),
        // MARK: Tests
        .testTarget(
            name: "TelemetryKitPreviewFilterTests",
            dependencies: ["TelemetryKitPreviewFilter", "TelemetryKitTesting"],
            path: "Tests/TelemetryKitPreviewFilterTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitDefaultParametersTests",
            dependencies: ["TelemetryKitDefaultParameters", "TelemetryKitTesting", "TelemetryKitDefaultPrefix"],
            path: "Tests/TelemetryKitDefaultParametersTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitDefaultPrefixTests",
            dependencies: ["TelemetryKitDefaultPrefix", "TelemetryKitTesting"],
            path: "Tests/TelemetryKitDefaultPrefixTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitValidationTests",
            dependencies: ["TelemetryKitValidation", "TelemetryKitTesting"],
            path: "Tests/TelemetryKitValidationTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitTestModeTests",
            dependencies: ["TelemetryKitTestMode", "TelemetryKitTesting"],
            path: "Tests/TelemetryKitTestModeTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitUserIdentifierTests",
            dependencies: ["TelemetryKitUserIdentifier", "TelemetryKitTesting", "TelemetryKitPlistStorage"],
            path: "Tests/TelemetryKitUserIdentifierTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitSessionTrackingTests",
            dependencies: ["TelemetryKitSessionTracking", "TelemetryKitTesting", "TelemetryKitPlistStorage"],
            path: "Tests/TelemetryKitSessionTrackingTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitDeviceTests",
            dependencies: ["TelemetryKitDevice", "TelemetryKitTesting"],
            path: "Tests/TelemetryKitDeviceTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitAppInfoTests",
            dependencies: ["TelemetryKitAppInfo", "TelemetryKitTesting"],
            path: "Tests/TelemetryKitAppInfoTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitLocaleTests",
            dependencies: ["TelemetryKitLocale", "TelemetryKitTesting"],
            path: "Tests/TelemetryKitLocaleTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitCalendarTests",
            dependencies: ["TelemetryKitCalendar", "TelemetryKitTesting"],
            path: "Tests/TelemetryKitCalendarTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitAccessibilityTests",
            dependencies: ["TelemetryKitAccessibility", "TelemetryKitTesting"],
            path: "Tests/TelemetryKitAccessibilityTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitTrialConversionTests",
            dependencies: ["TelemetryKitTrialConversion", "TelemetryKitTesting"],
            path: "Tests/TelemetryKitTrialConversionTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitConsentTests",
            dependencies: ["TelemetryKitConsent", "TelemetryKitTesting"],
            path: "Tests/TelemetryKitConsentTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitTrackingPlanTests",
            dependencies: ["TelemetryKitTrackingPlan", "TelemetryKitTesting"],
            path: "Tests/TelemetryKitTrackingPlanTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitInMemoryStorageTests",
            dependencies: ["TelemetryKitInMemoryStorage", "TelemetryKitTesting"],
            path: "Tests/TelemetryKitInMemoryStorageTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitFileStorageSupportTests",
            dependencies: ["TelemetryKitFileStorageSupport", "TelemetryKitTesting"],
            path: "Tests/TelemetryKitFileStorageSupportTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitCacheSupportTests",
            dependencies: ["TelemetryKitCacheSupport", "TelemetryKitTesting"],
            path: "Tests/TelemetryKitCacheSupportTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitSQLiteCacheTests",
            dependencies: [
                "TelemetryKitSQLiteCache", "TelemetryKitTesting", .target(name: "CSQLite", condition: withoutSDKSQLite),
                "TelemetryKitClient",
            ],
            path: "Tests/TelemetryKitSQLiteCacheTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitJSONLinesCacheTests",
            dependencies: ["TelemetryKitJSONLinesCache", "TelemetryKitTesting"],
            path: "Tests/TelemetryKitJSONLinesCacheTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitHTTPTests",
            dependencies: [
                "TelemetryKitHTTP", "TelemetryKitTesting", "TelemetryKitClient", "TelemetryKitSupport",
                .target(name: "TelemetryKitCollector", condition: whenTools), "TelemetryKitTransformations",
                .target(name: "TelemetryKitHTTPTestSupport", condition: whenTools),
            ],
            path: "Tests/TelemetryKitHTTPTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitConsoleTests",
            dependencies: ["TelemetryKitConsole", "TelemetryKitTesting"],
            path: "Tests/TelemetryKitConsoleTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitAsyncHTTPClientTests",
            dependencies: [
                "TelemetryKitAsyncHTTPClient", "TelemetryKitTesting", "TelemetryKitHTTP", "TelemetryKitClient",
                .target(name: "TelemetryKitCollector", condition: whenTools),
                .product(name: "AsyncHTTPClient", package: "async-http-client", condition: whenAsyncHTTPClient),
            ],
            path: "Tests/TelemetryKitAsyncHTTPClientTests",
            swiftSettings: settings
        ),
        // Decodes every body with the OpenTelemetry project's Python classes.
        .testTarget(
            name: "TelemetryKitOpenTelemetryTests",
            dependencies: [
                "TelemetryKitOpenTelemetry", "TelemetryKitTesting", "TelemetryKitHTTP", "TelemetryKitSQLiteCache",
                "TelemetryKitClient",
                .product(name: "Instrumentation", package: "swift-distributed-tracing", condition: whenOpenTelemetry),
            ],
            path: "Tests/TelemetryKitOpenTelemetryTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitTransformationsTests",
            dependencies: ["TelemetryKitTransformations", "TelemetryKitTesting", "TelemetryKitClient"],
            path: "Tests/TelemetryKitTransformationsTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitJavaScriptTests",
            dependencies: [
                "TelemetryKitJavaScript", "TelemetryKitTesting", "TelemetryKitTransformations", "TelemetryKitClient",
            ],
            path: "Tests/TelemetryKitJavaScriptTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitPresetsTests",
            dependencies: ["TelemetryKitPresets", "TelemetryKitTesting", "TelemetryKitClient", "TelemetryKitDefaults"],
            path: "Tests/TelemetryKitPresetsTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitComposableTests",
            dependencies: [
                "TelemetryKitComposable", "TelemetryKitTesting",
                .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
                .product(name: "Dependencies", package: "swift-dependencies", condition: whenDependencies),
                .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
            ],
            path: "Tests/TelemetryKitComposableTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitSwiftLogTests",
            dependencies: [
                "TelemetryKitSwiftLog", "TelemetryKitTesting", "TelemetryKitClient",
                .product(name: "Logging", package: "swift-log", condition: whenSwiftLog),
                .product(name: "InMemoryLogging", package: "swift-log", condition: whenSwiftLog),
            ],
            path: "Tests/TelemetryKitSwiftLogTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitServiceLifecycleTests",
            dependencies: [
                "TelemetryKitServiceLifecycle", "TelemetryKitTesting",
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle", condition: whenServiceLifecycle),
                .product(name: "Logging", package: "swift-log", condition: whenServiceLifecycle),
            ],
            path: "Tests/TelemetryKitServiceLifecycleTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitMetricsTests",
            dependencies: [
                "TelemetryKitMetrics", "TelemetryKitTesting",
                .product(name: "CoreMetrics", package: "swift-metrics", condition: whenMetrics),
                .product(name: "MetricsTestKit", package: "swift-metrics", condition: whenMetrics),
            ],
            path: "Tests/TelemetryKitMetricsTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitTypedEventsTests",
            dependencies: [
                "TelemetryKitTypedEvents", "TelemetryKitTesting", "TelemetryKitTrackingPlan", "TelemetryKitComposable",
                "TelemetryKitHTTP", "TelemetryKitClient",
            ],
            path: "Tests/TelemetryKitTypedEventsTests",
            swiftSettings: settings
        ),
        // Built with `appSettings`: written as a migrating app writes its code.
        .testTarget(
            name: "TelemetryKitDefaultsTests",
            dependencies: [
                "TelemetryKitDefaults", "TelemetryKitTesting", "TopLevelAwaitCheck", "telemetrykit-quickexit",
                .target(name: "TelemetryKitCollector", condition: whenTools),
            ],
            path: "Tests/TelemetryKitDefaultsTests",
            swiftSettings: settings + appSettings
        ),
        .testTarget(
            name: "TelemetryKitCollectorTests",
            dependencies: ["TelemetryKitCollector", "TelemetryKitTesting", "TelemetryKitHTTP", "TelemetryKitSupport"],
            path: "Tests/TelemetryKitCollectorTests",
            swiftSettings: settings
        ),
        // The core alone: a processor plugin built and run against nothing but the API.
        .testTarget(
            name: "TelemetryKitTests",
            dependencies: ["TelemetryKit"],
            path: "Tests/TelemetryKitTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitClientTests",
            dependencies: ["TelemetryKitClient", "TelemetryKitSupport", "TelemetryKitTesting"],
            path: "Tests/TelemetryKitClientTests",
            swiftSettings: settings
        ),
        // Both file storages, and several processes writing one file.
        .testTarget(
            name: "TelemetryKitFileStorageTests",
            dependencies: [
                "TelemetryKitPlistStorage", "TelemetryKitJSONFileStorage", "TelemetryKitTesting",
                "telemetrykit-storage-writer",
            ],
            path: "Tests/TelemetryKitFileStorageTests",
            swiftSettings: settings
        ),
        // Kill -9 runs of telemetrykit-crashtester; files written by earlier on-disk formats.
        .testTarget(
            name: "TelemetryKitCacheDurabilityTests",
            dependencies: [
                "TelemetryKitSQLiteCache", "TelemetryKitJSONLinesCache", "TelemetryKitClient", "TelemetryKitSupport",
                "TelemetryKitTesting", "telemetrykit-crashtester",
                .target(name: "CSQLite", condition: withoutSDKSQLite),
                .target(name: "TelemetryKitCollector", condition: whenTools),
            ],
            path: "Tests/TelemetryKitCacheDurabilityTests",
            resources: [.copy("Fixtures")],
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitTypedEventsMacrosTests",
            dependencies: [
                .target(name: "TelemetryKitTypedEventsMacros", condition: whenTypedEvents),
                .product(name: "SwiftSyntax", package: "swift-syntax", condition: whenTypedEvents),
                .product(name: "SwiftSyntaxMacros", package: "swift-syntax", condition: whenTypedEvents),
                .product(name: "SwiftDiagnostics", package: "swift-syntax", condition: whenTypedEvents),
                .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax", condition: whenTypedEvents),
                .product(
                    name: "SwiftSyntaxMacrosGenericTestSupport",
                    package: "swift-syntax",
                    condition: whenTypedEvents
                ),
            ],
            path: "Tests/TelemetryKitTypedEventsMacrosTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitCLITests",
            dependencies: [
                "TelemetryKitTesting", .target(name: "TelemetryKitCollector", condition: whenTools),
                .target(name: "TelemetryKitHTTPTestSupport", condition: whenTools),
            ],
            path: "Tests/TelemetryKitCLITests",
            swiftSettings: settings
        ),
        // End to end: the default pipeline, a durable cache, HTTP and the loopback collector.
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "TelemetryKitDefaults", "TelemetryKitTesting", "TelemetryKitSupport",
                .target(name: "TelemetryKitHTTPTestSupport", condition: whenTools),
                .target(name: "TelemetryKitCollector", condition: whenTools),
            ],
            path: "Tests/IntegrationTests",
            swiftSettings: settings
        ),
        .testTarget(
            name: "TelemetryKitFuzzCorpusTests",
            dependencies: ["TelemetryKitFuzzChecks"],
            path: "Tests/TelemetryKitFuzzCorpusTests",
            swiftSettings: settings
        ),
        // Reads the sources and the privacy manifests, as files: it links no module of ours.
        .testTarget(
            name: "TelemetryKitPrivacyManifestTests",
            dependencies: [],
            path: "Tests/TelemetryKitPrivacyManifestTests",
            swiftSettings: settings
        ),
    ]
)
