public import TelemetryKit
import TelemetryKitSupport

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// A `ProcessorStorage` served from memory and persisted to one file in the format `Format`.
///
/// One storage, several file formats: `PlistProcessorStorage` is
/// `FileBackedProcessorStorage<PropertyListStorageFormat>` and `JSONFileProcessorStorage` is
/// `FileBackedProcessorStorage<JSONStorageFormat>`. Store another format by conforming a type
/// to `ProcessorStorageFileFormat`; everything but encoding and decoding one whole file is
/// done here, the same way for every format:
///
/// - Reads never touch the disk: the file is read once, at creation.
/// - Writes are coalesced: the first change after a write schedules one write `writeDelay`
///   later, so a burst of sets costs one write. `flush()` writes at once.
/// - Each write replaces the whole file atomically (temporary file in the same directory,
///   `fsync`, `rename`) with mode 0600, so a crash leaves the old or the new file, never a mix.
/// - Several processes may share the file (an app and its extensions in an app group, server
///   workers on one data directory). A write takes an exclusive lock (`<file>.lock`), reads
///   the file as it is now, lays only the keys this storage changed over it and writes the
///   result, so no process overwrites another's keys from a stale copy; the values read
///   afterwards include what the others wrote. For one key set by two processes, the later
///   write wins.
/// - An unreadable file (garbage, truncated, foreign layout) is moved aside with a
///   `.corrupt` suffix, a warning is logged once, and the storage starts empty.
///
/// ```swift
/// let settings = try PlistProcessorStorage(appID: "APP-ID")    // <app support>/TelemetryKit.plist
/// let yaml = try FileBackedProcessorStorage(
///     fileURL: directory.appendingPathComponent("settings.yaml"),
///     format: YAMLStorageFormat()
/// )
/// ```
public final class FileBackedProcessorStorage<Format: ProcessorStorageFileFormat>: ProcessorStorage {
    /// The delay between the first unsaved change and its write, unless given otherwise.
    public static var defaultWriteDelay: TimeInterval { 0.5 }

    /// Suffix appended to the name of a file that could not be decoded.
    public static var corruptFileSuffix: String { ".corrupt" }

    /// The file the values persist to.
    public let fileURL: URL
    /// How long a change waits for others before they are written together.
    public let writeDelay: TimeInterval
    /// Encodes and decodes the file.
    public let format: Format
    /// The suite the file is named after, when opened by suite (nil when opened by URL).
    public let suiteName: String?
    /// The app whose directory holds the file, when opened by suite (nil when opened by URL).
    public let appID: String?

    private let filePath: String
    private let lockPath: String
    private let directoryPath: String
    private let logger: any Logging
    private let clock: any TelemetryClock
    private let state: Locked<State>
    private let writer = Writer()

    private struct State {
        var values: [String: StoredValue]
        /// The keys set or removed since their last write (nil: removed), with the generation
        /// of their latest change: a write merges these, and only these, into the file.
        var changes: [String: (value: StoredValue?, generation: UInt64)] = [:]
        /// Bumped by every change; compared with `persistedGeneration` to know what is unsaved.
        var generation: UInt64 = 0
        var persistedGeneration: UInt64 = 0
        var nextTicket: UInt64 = 0
        var scheduled: (ticket: UInt64, task: Task<Void, Never>)?
        var lastScheduledWrite: Task<Void, Never>?
        var diagnostics = FileStorageDiagnostics()
        /// The generation of a `removeAll()` not written yet: the next write starts from an
        /// empty file instead of merging into the one on disk.
        var erasedAt: UInt64?
    }

    /// Serialises writes so that a timer write and a `flush()` never write at the same time,
    /// and a `flush()` returns only after every earlier change is on disk.
    private actor Writer {
        func writePendingChanges(of storage: FileBackedProcessorStorage) {
            storage.writePendingChangesNow()
        }
    }

    /// Opens the file of suite `suiteName` for `appID`: `<directory>/<suiteName>.<extension>`,
    /// where `directory` defaults to the app's application-support directory (on Linux
    /// `$XDG_DATA_HOME/telemetrykit/<appID>/` or `~/.local/share/telemetrykit/<appID>/`),
    /// creating the directory if needed.
    ///
    /// ```swift
    /// let storage = try PlistProcessorStorage(appID: "APP-ID")
    /// await storage.set("B", forKey: "ABTest.variant")
    /// ```
    ///
    /// - Parameters:
    ///   - suiteName: The file name without extension (default `"TelemetryKit"`); one path
    ///     component.
    ///   - appID: The app whose directory holds the file; one path component.
    ///   - directory: The directory for the file, instead of the app's default one.
    ///   - format: Encodes and decodes the file (default: the format's default settings).
    ///   - logger: Receives the corrupt-file warning and write errors.
    ///   - writeDelay: How long changes are collected before one write.
    ///   - clock: The clock the write delay runs on.
    /// - Throws: `FileStorageError` for a suite name or app id that is not one path
    ///   component, an unusable directory or an unreadable file, naming the path.
    public convenience init(
        suiteName: String = "TelemetryKit",
        appID: String,
        directory: URL? = nil,
        format: Format = Format(),
        logger: any Logging = StandardErrorLogger(),
        writeDelay: TimeInterval = FileBackedProcessorStorage.defaultWriteDelay,
        clock: any TelemetryClock = SystemClock()
    ) throws(FileStorageError) {
        try StorageDirectory.validateComponent(suiteName)
        try StorageDirectory.validateComponent(appID)
        let resolvedDirectory: URL
        if let directory {
            resolvedDirectory = directory
        } else {
            resolvedDirectory = try StorageDirectory.applicationSupport(appID: appID)
        }
        try self.init(
            fileURL: resolvedDirectory.appendingPathComponent(
                suiteName + "." + format.fileExtension,
                isDirectory: false
            ),
            format: format,
            logger: logger,
            writeDelay: writeDelay,
            clock: clock,
            suite: (suiteName, appID)
        )
    }

    /// Opens (or prepares to create) the storage file at `fileURL`.
    ///
    /// Creates the directory (mode 0700) if needed and checks that files can be created in
    /// it, so a storage that could never save fails here instead of losing values later.
    ///
    /// - Parameters:
    ///   - fileURL: The file to read now and write later.
    ///   - format: Encodes and decodes the file.
    ///   - logger: Receives the corrupt-file warning and write errors.
    ///   - writeDelay: How long changes are collected before one write (default 0.5 s).
    ///   - clock: The clock the write delay runs on (`ManualClock` in tests).
    /// - Throws: `FileStorageError.directoryNotWritable` or `.fileNotReadable`, naming the path.
    public convenience init(
        fileURL: URL,
        format: Format = Format(),
        logger: any Logging = StandardErrorLogger(),
        writeDelay: TimeInterval = FileBackedProcessorStorage.defaultWriteDelay,
        clock: any TelemetryClock = SystemClock()
    ) throws(FileStorageError) {
        try self.init(
            fileURL: fileURL,
            format: format,
            logger: logger,
            writeDelay: writeDelay,
            clock: clock,
            suite: nil
        )
    }

    private init(
        fileURL: URL,
        format: Format,
        logger: any Logging,
        writeDelay: TimeInterval,
        clock: any TelemetryClock,
        suite: (name: String, appID: String)?
    ) throws(FileStorageError) {
        self.fileURL = fileURL
        self.format = format
        self.suiteName = suite?.name
        self.appID = suite?.appID
        self.logger = logger
        self.writeDelay = max(0, writeDelay)
        self.clock = clock
        filePath = fileURL.path
        lockPath = fileURL.path + ".lock"
        directoryPath = fileURL.deletingLastPathComponent().path

        do {
            try Self.createPrivateDirectory(atPath: directoryPath)
        } catch {
            throw .directoryNotWritable(path: directoryPath, reason: "cannot create it (\(error))")
        }
        do {
            try AtomicFile.probeWritable(directory: directoryPath)
        } catch {
            throw .directoryNotWritable(path: directoryPath, reason: error.reason)
        }

        let contents: Data?
        do {
            contents = try AtomicFile.read(path: filePath)
        } catch {
            throw .fileNotReadable(path: filePath, reason: error.reason)
        }

        var diagnostics = FileStorageDiagnostics()
        var values: [String: StoredValue] = [:]
        if let contents {
            do {
                values = try format.decode(contents)
            } catch {
                diagnostics.recoveredFromCorruptFile = true
                Self.moveCorruptFileAside(path: filePath, byteCount: contents.count, error: error, logger: logger)
            }
        }
        state = Locked(State(values: values, diagnostics: diagnostics))
    }

    // MARK: Reading

    /// The value under `key`, whatever its type.
    public func value(forKey key: String) -> StoredValue? {
        state.withLock { $0.values[key] }
    }

    public func data(forKey key: String) async -> Data? {
        if case .data(let value) = value(forKey: key) { return value }
        return nil
    }

    public func string(forKey key: String) async -> String? {
        if case .string(let value) = value(forKey: key) { return value }
        return nil
    }

    public func integer(forKey key: String) async -> Int {
        if case .integer(let value) = value(forKey: key) { return value }
        return 0
    }

    public func bool(forKey key: String) async -> Bool {
        if case .bool(let value) = value(forKey: key) { return value }
        return false
    }

    /// The stored keys, for tests and debugging.
    public var keys: [String] {
        state.withLock { Array($0.values.keys) }
    }

    /// Write counters and state, for tests and debugging.
    public var diagnostics: FileStorageDiagnostics {
        state.withLock { state in
            var diagnostics = state.diagnostics
            diagnostics.hasPendingChanges = state.generation != state.persistedGeneration
            return diagnostics
        }
    }

    // MARK: Writing

    /// Sets (or, with `nil`, removes) the value under `key`; the file is written later.
    public func setValue(_ value: StoredValue?, forKey key: String) {
        state.withLock { state in
            // Setting what is already there changes nothing and must not cost a write.
            guard state.values[key] != value else { return }
            state.values[key] = value
            state.generation &+= 1
            state.changes[key] = (value, state.generation)
            scheduleWrite(&state)
        }
    }

    /// Erases every value, also those other processes wrote to the file; the file is written
    /// later (at once on `flush()`), holding only what is set after this.
    public func removeAll() async {
        state.withLock { state in
            state.values = [:]
            state.changes = [:]
            state.generation &+= 1
            state.erasedAt = state.generation
            scheduleWrite(&state)
        }
    }

    private func scheduleWrite(_ state: inout State) {
        guard state.scheduled == nil else { return }
        let ticket = state.nextTicket
        state.nextTicket &+= 1
        // Holds `self` until the write is done, so pending values outlive the last reference
        // to the storage.
        let task = Task { await self.runScheduledWrite(ticket: ticket) }
        state.scheduled = (ticket, task)
        state.lastScheduledWrite = task
    }

    public func set(_ value: Data?, forKey key: String) async { setValue(value.map(StoredValue.data), forKey: key) }
    public func set(_ value: String?, forKey key: String) async { setValue(value.map(StoredValue.string), forKey: key) }
    public func set(_ value: Int, forKey key: String) async { setValue(.integer(value), forKey: key) }
    public func set(_ value: Bool, forKey key: String) async { setValue(.bool(value), forKey: key) }

    public func removeValue(forKey key: String) async { setValue(nil, forKey: key) }

    /// Writes every change made so far, now; returns when it is on disk (or the write failed
    /// and was logged).
    public func flush() async {
        let scheduled = state.withLock { state -> Task<Void, Never>? in
            defer { state.scheduled = nil }
            return state.scheduled?.task
        }
        scheduled?.cancel()
        await writer.writePendingChanges(of: self)
    }

    /// The most recently scheduled delayed write, so tests can await it.
    var lastScheduledWrite: Task<Void, Never>? {
        state.withLock { $0.lastScheduledWrite }
    }

    private func runScheduledWrite(ticket: UInt64) async {
        do {
            try await clock.sleep(for: writeDelay)
        } catch {
            return  // Cancelled by `flush()`, which writes instead.
        }
        let isCurrent = state.withLock { state -> Bool in
            guard state.scheduled?.ticket == ticket else { return false }
            state.scheduled = nil
            return true
        }
        guard isCurrent else { return }
        await writer.writePendingChanges(of: self)
    }

    /// Merges the changed keys into the file as it is on disk now and writes it, under the
    /// cross-process lock; then adopts what other processes wrote. Called only by `writer`,
    /// so writes of this storage never overlap.
    private func writePendingChangesNow() {
        let snapshot = state.withLock {
            state -> (changes: [String: StoredValue?], values: [String: StoredValue], generation: UInt64, erases: Bool)?
            in
            guard state.generation != state.persistedGeneration else { return nil }
            return (state.changes.mapValues(\.value), state.values, state.generation, state.erasedAt != nil)
        }
        guard let snapshot else { return }
        do {
            let merged = try AtomicFile.withExclusiveLock(path: lockPath) {
                var merged = snapshot.erases ? [:] : currentFileValues(orElse: snapshot.values)
                for (key, value) in snapshot.changes {
                    merged[key] = value
                }
                try AtomicFile.replace(path: filePath, in: directoryPath, with: try format.encode(merged))
                return merged
            }
            state.withLock { state in
                state.persistedGeneration = max(state.persistedGeneration, snapshot.generation)
                if let erasedAt = state.erasedAt, erasedAt <= snapshot.generation { state.erasedAt = nil }
                state.changes = state.changes.filter { $0.value.generation > snapshot.generation }
                // Others' keys as written, with this storage's newer changes on top.
                var values = merged
                for (key, change) in state.changes {
                    values[key] = change.value
                }
                state.values = values
                state.diagnostics.writeCount += 1
            }
        } catch {
            state.withLock { $0.diagnostics.failedWriteCount += 1 }
            logger.error(
                "Could not write storage file \(filePath): \(error). The changes stay in memory and are retried on the next write."
            )
        }
    }

    /// The values in the file now (another process may have written it since it was read);
    /// `fallback` when there is no readable file: none yet, or one damaged meanwhile, which is
    /// moved aside with a warning as at creation.
    private func currentFileValues(orElse fallback: [String: StoredValue]) -> [String: StoredValue] {
        let contents: Data?
        do {
            contents = try AtomicFile.read(path: filePath)
        } catch {
            logger.warning(
                "Could not read storage file \(filePath) before writing it (\(error.reason)); writing this process's values."
            )
            return fallback
        }
        guard let contents else { return fallback }
        do {
            return try format.decode(contents)
        } catch {
            state.withLock { $0.diagnostics.recoveredFromCorruptFile = true }
            Self.moveCorruptFileAside(path: filePath, byteCount: contents.count, error: error, logger: logger)
            return fallback
        }
    }

    private static func moveCorruptFileAside(path: String, byteCount: Int, error: any Error, logger: any Logging) {
        let decodingError = error
        let destination = path + Self.corruptFileSuffix
        do {
            try AtomicFile.move(path: path, to: destination)
            logger.warning(
                "Storage file \(path) is unreadable (\(byteCount) bytes: \(decodingError)); starting with empty values. "
                    + "The file was moved to \(destination)."
            )
        } catch {
            logger.warning(
                "Storage file \(path) is unreadable (\(byteCount) bytes: \(decodingError)); starting with empty values. "
                    + "Moving it aside failed (\(error.reason)), so the next write replaces it."
            )
        }
    }
}

extension FileBackedProcessorStorage {
    /// Makes sure the directory at `path` exists, creating it (and its missing parents)
    /// readable by the user only.
    ///
    /// Why POSIX calls first: the directory exists in every launch but the first, and
    /// `FileManager`'s attributes dictionary costs its first user a search of the runtime's
    /// conformance tables, inside `Telemetry.initialize`.
    static func createPrivateDirectory(atPath path: String) throws {
        var status = stat()
        if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR { return }
        if mkdir(path, 0o700) == 0 { return }
        // Missing parents, or something else in the way: FileManager creates the parents or
        // says what is wrong.
        try FileManager.default.createDirectory(
            atPath: path,
            withIntermediateDirectories: true,
            attributes: [.posixPermissions: 0o700]
        )
    }
}

extension ProcessorStorageFileFormat {
    /// `FileBackedProcessorStorage<Self>(appID:directory:logger:)` as `any ProcessorStorage`,
    /// made where `Self` is a generic parameter: for `Telemetry.initialize`, which opens the
    /// default storage while an app launches.
    ///
    /// Why: code that names `FileBackedProcessorStorage<PropertyListStorageFormat>` (to make
    /// one, or to wrap one in `any ProcessorStorage`) gets its type from a mangled name, and
    /// the Swift runtime finds the format's conformance for it by searching every conformance
    /// record of the process, once per process. Here, unspecialised,
    /// the conformance is the argument the caller passes.
    @_semantics("optimize.sil.specialize.generic.never")
    @inline(never)
    package static func openStorage(
        appID: String,
        directory: URL?,
        logger: any Logging
    ) throws(FileStorageError) -> any ProcessorStorage {
        try FileBackedProcessorStorage<Self>(appID: appID, directory: directory, logger: logger)
    }
}
