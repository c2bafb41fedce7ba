public import TelemetryKit
public import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The behaviour every `ProcessorStorage` must show, as a reusable Swift Testing suite.
///
/// Run it from a test of your backend. `makeStorage(name)` returns a storage for `name`:
/// empty the first time a name is used, and reading what the previous instance flushed when
/// the same name comes again (a reopen, as after an app restart).
///
/// ```swift
/// @Test(arguments: ProcessorStorageConformance.Check.allCases)
/// func conformance(_ check: ProcessorStorageConformance.Check) async throws {
///     let directory = try makeTemporaryDirectory()
///     try await ProcessorStorageConformance.run(check) { name in
///         try MyStorage(file: directory.appendingPathComponent(name))
///     }
/// }
/// ```
/// A backend without persistence can pass a closure that returns the same instance for the
/// same name.
public enum ProcessorStorageConformance {
    /// One property of the contract.
    public enum Check: String, Sendable, CaseIterable, CustomStringConvertible {
        /// A new storage answers `nil` for every getter.
        case startsEmpty
        /// Each type reads back exactly, including edge values and unusual keys.
        case roundTripsEveryType
        /// A getter of another type than the stored one answers `nil`.
        case typesAreDistinct
        /// A second set replaces the first, also with another type.
        case overwrites
        /// `removeValue` removes one key and leaves the others.
        case removes
        /// Hundreds of keys of mixed types.
        case manyKeys
        /// Concurrent sets from many tasks all land.
        case concurrentSets
        /// After `flush()`, a reopened storage reads the values (and not the removed ones).
        case persistsAcrossReopen
        /// Changes after a reopen persist as well, replacing the earlier file contents.
        case persistsChangesAfterReopen

        public var description: String { rawValue }
    }

    /// Runs every check, each with storages of its own name.
    public static func run(
        sourceLocation: SourceLocation = #_sourceLocation,
        makeStorage: (_ name: String) async throws -> any ProcessorStorage
    ) async throws {
        for check in Check.allCases {
            try await run(check, sourceLocation: sourceLocation, makeStorage: makeStorage)
        }
    }

    /// Runs one check; its storages are named `"conformance-<check>"`.
    public static func run(
        _ check: Check,
        sourceLocation: SourceLocation = #_sourceLocation,
        makeStorage: (_ name: String) async throws -> any ProcessorStorage
    ) async throws {
        let name = "conformance-\(check.rawValue)"
        let storage = try await makeStorage(name)
        switch check {
        case .startsEmpty:
            try await startsEmpty(storage, sourceLocation)
        case .roundTripsEveryType:
            try await roundTripsEveryType(storage, sourceLocation)
        case .typesAreDistinct:
            try await typesAreDistinct(storage, sourceLocation)
        case .overwrites:
            try await overwrites(storage, sourceLocation)
        case .removes:
            try await removes(storage, sourceLocation)
        case .manyKeys:
            try await manyKeys(storage, sourceLocation)
        case .concurrentSets:
            try await concurrentSets(storage, sourceLocation)
        case .persistsAcrossReopen:
            try await persistsAcrossReopen(storage, reopen: { try await makeStorage(name) }, sourceLocation)
        case .persistsChangesAfterReopen:
            try await persistsChangesAfterReopen(storage, reopen: { try await makeStorage(name) }, sourceLocation)
        }
    }

    // MARK: Values used by the checks

    /// Keys that a naive file format might mangle.
    static let unusualKeys = ["", "with space", "dotted.key.name", "slash/and\\backslash", "quote\"", "ümlaut-🔑"]

    static let everyByte = Data((0...255).map { UInt8($0) })

    // MARK: Checks

    private static func startsEmpty(_ storage: any ProcessorStorage, _ location: SourceLocation) async throws {
        for key in ["missing", ""] {
            #expect(await storage.data(forKey: key) == nil, "data(\(key))", sourceLocation: location)
            #expect(await storage.string(forKey: key) == nil, "string(\(key))", sourceLocation: location)
            #expect(await storage.integer(forKey: key) == 0, "integer(\(key))", sourceLocation: location)
            #expect(await storage.bool(forKey: key) == false, "bool(\(key))", sourceLocation: location)
        }
    }

    private static func roundTripsEveryType(_ storage: any ProcessorStorage, _ location: SourceLocation) async throws {
        await storage.set(everyByte, forKey: "data.bytes")
        await storage.set(Data(), forKey: "data.empty")
        await storage.set("TelemetryKit ✓ \"quoted\" <tag> &amp;\n\ttab", forKey: "string.text")
        await storage.set("", forKey: "string.empty")
        await storage.set(Int.max, forKey: "integer.max")
        await storage.set(Int.min, forKey: "integer.min")
        await storage.set(0, forKey: "integer.zero")
        await storage.set(-42, forKey: "integer.negative")
        await storage.set(true, forKey: "bool.true")
        await storage.set(false, forKey: "bool.false")
        for (index, key) in unusualKeys.enumerated() {
            await storage.set("value \(index)", forKey: key)
        }

        #expect(await storage.data(forKey: "data.bytes") == everyByte, sourceLocation: location)
        #expect(await storage.data(forKey: "data.empty") == Data(), sourceLocation: location)
        #expect(
            await storage.string(forKey: "string.text") == "TelemetryKit ✓ \"quoted\" <tag> &amp;\n\ttab",
            sourceLocation: location
        )
        #expect(await storage.string(forKey: "string.empty") == "", sourceLocation: location)
        #expect(await storage.integer(forKey: "integer.max") == Int.max, sourceLocation: location)
        #expect(await storage.integer(forKey: "integer.min") == Int.min, sourceLocation: location)
        #expect(await storage.integer(forKey: "integer.zero") == 0, sourceLocation: location)
        #expect(await storage.integer(forKey: "integer.negative") == -42, sourceLocation: location)
        #expect(await storage.bool(forKey: "bool.true") == true, sourceLocation: location)
        #expect(await storage.bool(forKey: "bool.false") == false, sourceLocation: location)
        for (index, key) in unusualKeys.enumerated() {
            #expect(await storage.string(forKey: key) == "value \(index)", "key \(key)", sourceLocation: location)
        }
    }

    private static func typesAreDistinct(_ storage: any ProcessorStorage, _ location: SourceLocation) async throws {
        await storage.set("1", forKey: "string")
        await storage.set(1, forKey: "integer")
        await storage.set(true, forKey: "bool")
        await storage.set(Data("1".utf8), forKey: "data")

        #expect(await storage.integer(forKey: "string") == 0, sourceLocation: location)
        #expect(await storage.bool(forKey: "string") == false, sourceLocation: location)
        #expect(await storage.data(forKey: "string") == nil, sourceLocation: location)

        #expect(await storage.bool(forKey: "integer") == false, sourceLocation: location)
        #expect(await storage.string(forKey: "integer") == nil, sourceLocation: location)
        #expect(await storage.data(forKey: "integer") == nil, sourceLocation: location)

        #expect(await storage.integer(forKey: "bool") == 0, sourceLocation: location)
        #expect(await storage.string(forKey: "bool") == nil, sourceLocation: location)
        #expect(await storage.data(forKey: "bool") == nil, sourceLocation: location)

        #expect(await storage.string(forKey: "data") == nil, sourceLocation: location)
        #expect(await storage.integer(forKey: "data") == 0, sourceLocation: location)
        #expect(await storage.bool(forKey: "data") == false, sourceLocation: location)

        #expect(await storage.string(forKey: "string") == "1", sourceLocation: location)
        #expect(await storage.integer(forKey: "integer") == 1, sourceLocation: location)
        #expect(await storage.bool(forKey: "bool") == true, sourceLocation: location)
        #expect(await storage.data(forKey: "data") == Data("1".utf8), sourceLocation: location)
    }

    private static func overwrites(_ storage: any ProcessorStorage, _ location: SourceLocation) async throws {
        await storage.set("first", forKey: "key")
        await storage.set("second", forKey: "key")
        #expect(await storage.string(forKey: "key") == "second", sourceLocation: location)

        await storage.set(7, forKey: "key")
        #expect(await storage.integer(forKey: "key") == 7, sourceLocation: location)
        #expect(await storage.string(forKey: "key") == nil, sourceLocation: location)

        await storage.set(false, forKey: "key")
        #expect(await storage.bool(forKey: "key") == false, sourceLocation: location)
        #expect(await storage.integer(forKey: "key") == 0, sourceLocation: location)

        await storage.set(Data([1, 2, 3]), forKey: "key")
        #expect(await storage.data(forKey: "key") == Data([1, 2, 3]), sourceLocation: location)
        #expect(await storage.bool(forKey: "key") == false, sourceLocation: location)
    }

    private static func removes(_ storage: any ProcessorStorage, _ location: SourceLocation) async throws {
        await storage.set("kept", forKey: "kept")
        await storage.set(5, forKey: "removed")
        await storage.removeValue(forKey: "removed")
        await storage.removeValue(forKey: "never-set")

        #expect(await storage.integer(forKey: "removed") == 0, sourceLocation: location)
        #expect(await storage.string(forKey: "kept") == "kept", sourceLocation: location)

        await storage.set("again", forKey: "removed")
        #expect(await storage.string(forKey: "removed") == "again", sourceLocation: location)

        // v3's optional setters: nil removes.
        await storage.set(nil as String?, forKey: "removed")
        #expect(await storage.string(forKey: "removed") == nil, sourceLocation: location)
        await storage.set(Data([9]), forKey: "data.removed")
        await storage.set(nil as Data?, forKey: "data.removed")
        #expect(await storage.data(forKey: "data.removed") == nil, sourceLocation: location)
    }

    private static func manyKeys(_ storage: any ProcessorStorage, _ location: SourceLocation) async throws {
        let count = 500
        for index in 0..<count {
            await setMixed(storage, index: index)
        }
        var mismatches: [Int] = []
        for index in 0..<count where !(await hasMixed(storage, index: index)) {
            mismatches.append(index)
        }
        #expect(mismatches == [], sourceLocation: location)
    }

    private static func concurrentSets(_ storage: any ProcessorStorage, _ location: SourceLocation) async throws {
        let count = 200
        await withTaskGroup(of: Void.self) { group in
            for index in 0..<count {
                group.addTask { await setMixed(storage, index: index) }
            }
        }
        var mismatches: [Int] = []
        for index in 0..<count where !(await hasMixed(storage, index: index)) {
            mismatches.append(index)
        }
        #expect(mismatches == [], sourceLocation: location)
    }

    private static func persistsAcrossReopen(
        _ storage: any ProcessorStorage,
        reopen: () async throws -> any ProcessorStorage,
        _ location: SourceLocation
    ) async throws {
        await storage.set(everyByte, forKey: "data")
        await storage.set("persisted ✓", forKey: "string")
        await storage.set(Int.min, forKey: "integer")
        await storage.set(true, forKey: "bool")
        await storage.set(false, forKey: "bool.false")
        await storage.set("temporary", forKey: "removed")
        await storage.removeValue(forKey: "removed")
        for (index, key) in unusualKeys.enumerated() {
            await storage.set(index, forKey: key)
        }
        await storage.flush()

        let reopened = try await reopen()
        #expect(await reopened.data(forKey: "data") == everyByte, sourceLocation: location)
        #expect(await reopened.string(forKey: "string") == "persisted ✓", sourceLocation: location)
        #expect(await reopened.integer(forKey: "integer") == Int.min, sourceLocation: location)
        #expect(await reopened.bool(forKey: "bool") == true, sourceLocation: location)
        #expect(await reopened.bool(forKey: "bool.false") == false, sourceLocation: location)
        #expect(await reopened.integer(forKey: "bool") == 0, sourceLocation: location)
        #expect(await reopened.string(forKey: "removed") == nil, sourceLocation: location)
        for (index, key) in unusualKeys.enumerated() {
            #expect(await reopened.integer(forKey: key) == index, "key \(key)", sourceLocation: location)
        }
    }

    private static func persistsChangesAfterReopen(
        _ storage: any ProcessorStorage,
        reopen: () async throws -> any ProcessorStorage,
        _ location: SourceLocation
    ) async throws {
        await storage.set("one", forKey: "changed")
        await storage.set(1, forKey: "removed later")
        await storage.set(true, forKey: "untouched")
        await storage.flush()

        let second = try await reopen()
        await second.set(2, forKey: "changed")
        await second.removeValue(forKey: "removed later")
        await second.flush()
        // Flushing without changes must keep the file as it is.
        await second.flush()

        let third = try await reopen()
        #expect(await third.integer(forKey: "changed") == 2, sourceLocation: location)
        #expect(await third.string(forKey: "changed") == nil, sourceLocation: location)
        #expect(await third.integer(forKey: "removed later") == 0, sourceLocation: location)
        #expect(await third.bool(forKey: "untouched") == true, sourceLocation: location)
    }

    // MARK: Helpers

    /// Key `mixed.<index>` holds a type chosen by `index % 4` and a value derived from it.
    private static func setMixed(_ storage: any ProcessorStorage, index: Int) async {
        let key = "mixed.\(index)"
        switch index % 4 {
        case 0: await storage.set("value-\(index)", forKey: key)
        case 1: await storage.set(index * 1_000_003, forKey: key)
        case 2: await storage.set(index % 8 == 2, forKey: key)
        default: await storage.set(Data("bytes-\(index)".utf8), forKey: key)
        }
    }

    private static func hasMixed(_ storage: any ProcessorStorage, index: Int) async -> Bool {
        let key = "mixed.\(index)"
        switch index % 4 {
        case 0: return await storage.string(forKey: key) == "value-\(index)"
        case 1: return await storage.integer(forKey: key) == index * 1_000_003
        case 2: return await storage.bool(forKey: key) == (index % 8 == 2)
        default: return await storage.data(forKey: key) == Data("bytes-\(index)".utf8)
        }
    }
}
