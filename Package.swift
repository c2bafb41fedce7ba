// swift-tools-version: 6.2

import PackageDescription

// TelemetryKit: a tiny core (`TelemetryKit`) and one target per plugin.
// Every library target below is also a product (see the end of this file), so an app
// depends on exactly the pieces it uses. Optional tooling sits behind package traits so
// that its dependencies are never fetched unless a trait is enabled.

// Package dependencies. A section that needs one appends it here (`dependencies += [...]`);
// dependencies used only by optional parts are referenced under a trait condition.
var dependencies: [Package.Dependency] = [
    .package(url: "https://github.com/apple/swift-crypto.git", from: "4.5.2")
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
        dependencies: ["TelemetryKit", "TelemetryKitTesting", "TelemetryKitInMemoryStorage"],
        path: "Tests/TelemetryKitTests"
    ),
]

// MARK: - Composition (the `Telemetry` facade)

/// Plugin modules that `TelemetryKitDefaults` re-exports and assembles.
var defaultPluginModules: [Target.Dependency] = [
    "TelemetryKitInMemoryStorage"
]

// MARK: - Processors (Plugins/Processors/<Name>, module TelemetryKit<Name>)

// MARK: Processors, group A (PreviewFilter, DefaultParameters, DefaultPrefix, Validation, TestMode, UserIdentifier, AppInfo)

// (end of group A)

// MARK: Processors, group B (SessionTracking)

// (end of group B)

// MARK: Processors, group C (Device, Locale, Calendar, Accessibility, TrialConversion)

// (end of group C)

// MARK: - Storage (Plugins/Storage/<Name>)

targets += [
    .target(
        name: "TelemetryKitInMemoryStorage",
        dependencies: ["TelemetryKit"],
        path: "Plugins/Storage/InMemory"
    )
]

// (end of storage)

// MARK: - Caches (Plugins/Caches/<Name>)

/// Platforms whose SDK has no `SQLite3` module: SQLite comes from the system library there.
let sqliteSystemLibraryPlatforms: [Platform] = [.linux, .android, .windows, .openbsd]

targets += [
    // The system SQLite on Linux (libsqlite3-dev); Apple platforms import their SDK's SQLite3.
    .systemLibrary(
        name: "CSQLite",
        path: "Plugins/Caches/CSQLite",
        pkgConfig: "sqlite3",
        providers: [.apt(["libsqlite3-dev"]), .yum(["sqlite-devel"])]
    ),
    .target(
        name: "TelemetryKitCacheSupport",
        dependencies: ["TelemetryKit"],
        path: "Plugins/Caches/Support"
    ),
    .target(
        name: "TelemetryKitSQLiteCache",
        dependencies: [
            "TelemetryKit",
            "TelemetryKitCacheSupport",
            .target(name: "CSQLite", condition: .when(platforms: sqliteSystemLibraryPlatforms)),
        ],
        path: "Plugins/Caches/SQLite"
    ),
    .target(
        name: "TelemetryKitJSONLinesCache",
        dependencies: ["TelemetryKit", "TelemetryKitCacheSupport"],
        path: "Plugins/Caches/JSONLines"
    ),
    // Sends numbered events through a TelemetryClient with a durable cache until killed;
    // the durability tests run it and SIGKILL it (part of the `Tools` set, no extra dependencies).
    .executableTarget(
        name: "telemetrykit-crashtester",
        dependencies: [
            "TelemetryKit",
            "TelemetryKitSQLiteCache",
            "TelemetryKitJSONLinesCache",
            "TelemetryKitInMemoryStorage",
        ],
        path: "Modules/TelemetryKitCrashTester"
    ),
    .testTarget(
        name: "TelemetryKitCacheSupportTests",
        dependencies: ["TelemetryKitCacheSupport", "TelemetryKitTesting"],
        path: "Tests/TelemetryKitCacheSupportTests"
    ),
    .testTarget(
        name: "TelemetryKitSQLiteCacheTests",
        dependencies: [
            "TelemetryKitSQLiteCache",
            "TelemetryKitTesting",
            .target(name: "CSQLite", condition: .when(platforms: sqliteSystemLibraryPlatforms)),
        ],
        path: "Tests/TelemetryKitSQLiteCacheTests"
    ),
    .testTarget(
        name: "TelemetryKitJSONLinesCacheTests",
        dependencies: ["TelemetryKitJSONLinesCache", "TelemetryKitTesting"],
        path: "Tests/TelemetryKitJSONLinesCacheTests"
    ),
    .testTarget(
        name: "TelemetryKitCacheDurabilityTests",
        dependencies: [
            "TelemetryKit",
            "TelemetryKitTesting",
            "TelemetryKitSQLiteCache",
            "TelemetryKitJSONLinesCache",
            "TelemetryKitInMemoryStorage",
            "telemetrykit-crashtester",
        ],
        path: "Tests/TelemetryKitCacheDurabilityTests"
    ),
]

// (end of caches)

// MARK: - Transmitters (Plugins/Transmitters/<Name>)

// (end of transmitters)

// MARK: - Transformations (Plugins/Transformations)

// (end of transformations)

// MARK: - Composable analytics and bridges (Plugins/Composable, Plugins/SwiftLog)

// (end of composable analytics and bridges)

// MARK: - Tools (trait Tools: collector, CLI)

// (end of tools)

// MARK: - Assembly

targets += [
    .target(
        name: "TelemetryKitDefaults",
        dependencies: ["TelemetryKit"] + defaultPluginModules,
        path: "Modules/TelemetryKitDefaults"
    ),
    .testTarget(
        name: "TelemetryKitDefaultsTests",
        dependencies: ["TelemetryKitDefaults", "TelemetryKitTesting"],
        path: "Tests/TelemetryKitDefaultsTests"
    ),
]

let package = Package(
    name: "TelemetryKit",
    platforms: [.macOS(.v13), .iOS(.v16), .tvOS(.v16), .watchOS(.v9), .visionOS(.v1)],
    products: targets.compactMap { target -> Product? in
        switch target.type {
        case .regular: return .library(name: target.name, targets: [target.name])
        case .executable: return .executable(name: target.name, targets: [target.name])
        default: return nil
        }
    },
    traits: [
        .trait(
            name: "Tools",
            description: "The dev collector and the `telemetrykit` CLI (swift-argument-parser, swift-nio)."
        ),
        .trait(name: "SwiftLog", description: "TelemetryKitSwiftLog: route SDK diagnostics into swift-log."),
        .trait(name: "Dependencies", description: "AnalyticsClient as a swift-dependencies DependencyKey."),
        .default(enabledTraits: []),
    ],
    dependencies: dependencies,
    targets: targets
)

for target in package.targets where target.type != .system && target.type != .binary && target.type != .plugin {
    var settings = target.swiftSettings ?? []
    settings.append(.swiftLanguageMode(.v6))
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    target.swiftSettings = settings
}
