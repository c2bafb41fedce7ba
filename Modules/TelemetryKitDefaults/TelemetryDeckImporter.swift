import TelemetryKitSupport

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// Adopts what TelemetryDeck's Swift SDK (v3, or v2 before it) left on the device, once, so
/// that an app moving to TelemetryKit keeps its users' identity, their session history and
/// the events they had not sent yet.
///
/// `Telemetry.initialize` runs `Telemetry.telemetryDeckImporter` (``standard`` unless set
/// otherwise) before the client starts; a client built by hand runs it the same way:
///
/// ```swift
/// let client = TelemetryClient(configuration: config, processors: processors, destinations: [ingest], storage: storage)
/// await TelemetryDeckImporter.standard.run(into: client, destinationID: "ingest")
/// await client.start()
/// ```
///
/// What is adopted, from TelemetryDeck's storage (on Apple platforms the `UserDefaults` suite
/// `com.telemetrydeck.` + the last 12 hex digits of SHA-256(app id)):
/// - the persisted user id (`defaultUserIdentifier`) becomes `UserIdentifierProcessor`'s
///   installation identifier, so events keep their `clientUser`;
/// - the sessions, deleted-session count, first-session date and days of use become
///   `SessionTrackingProcessor`'s history: the user is no new install (no
///   `newInstallDetected`) and the retention counts go on from there. Any of TelemetryDeck's
///   keys (an `installID` alone, say) is enough to mark the install as known.
///
/// And from the user's caches directory, the queued events (`telemetrysignalcache.json`, v2's
/// `telemetrysignalcache`) are appended to the destination's durable cache, oldest first,
/// ahead of anything the new client sends, and the files are then removed.
///
/// Guarantees:
/// - Once: markers in the client's storage (``Keys``) stop a second import; TelemetryKit's
///   own saved state is never replaced by imported state.
/// - Nothing lost: the files are removed only after the cache accepted their events (and
///   the markers were flushed to disk). If the cache fails, the files stay and the next
///   launch tries again.
/// - Damaged data is skipped with a warning, never a crash: an unreadable value, an
///   unreadable event (the others are imported), or a file that is not a JSON array (it is
///   left where it is and not read again).
/// - While analytics are disabled (`setAnalyticsDisabled(true)`), the queued events are
///   discarded as the client's own queue was; identity and history are still adopted.
public struct TelemetryDeckImporter: Sendable {
    /// The markers the importer keeps in the client's `ProcessorStorage` (Bool).
    public enum Keys {
        /// TelemetryDeck's identity and history were looked at (and adopted if found).
        public static let stateImported = "TelemetryKit.TelemetryDeckImport.stateImported"
        /// TelemetryDeck's queued events were imported (or there were none).
        public static let eventsImported = "TelemetryKit.TelemetryDeckImport.eventsImported"
    }

    /// The name of TelemetryDeck SDK v3's event queue in the caches directory.
    public static let eventCacheFileName = "telemetrysignalcache.json"
    /// The name of the v2 SDK's event queue in the caches directory.
    public static let version2EventCacheFileName = "telemetrysignalcache"

    /// What one run did with one kind of data.
    public enum Outcome: Sendable, Hashable {
        /// Found and adopted.
        case imported
        /// Nothing of TelemetryDeck's was there.
        case nothingFound
        /// An earlier run already did it.
        case alreadyImported
        /// Events only: analytics are disabled, so the queued events were deleted.
        case discarded
        /// Events only: they could not be read or cached; the files stay for the next launch.
        case failed
        /// Events only: the files are not event queues; they stay where they are and are not
        /// read again.
        case unreadable
        /// The importer is ``disabled``.
        case skipped
    }

    /// What a run did.
    public struct Report: Sendable, Hashable {
        /// The user id and the session history.
        public var state: Outcome
        /// The queued events.
        public var events: Outcome
        /// Whether TelemetryDeck's user id became the installation identifier.
        public var adoptedUserIdentifier: Bool
        /// Whether TelemetryDeck's session history became the session tracker's.
        public var adoptedSessionHistory: Bool
        /// Events appended to the cache.
        public var importedEventCount: Int
        /// Elements of the event files that were not readable events.
        public var skippedEventCount: Int
        /// Event files that were not JSON arrays (left in place, not read again).
        public var unreadableFileCount: Int

        public init(
            state: Outcome,
            events: Outcome,
            adoptedUserIdentifier: Bool = false,
            adoptedSessionHistory: Bool = false,
            importedEventCount: Int = 0,
            skippedEventCount: Int = 0,
            unreadableFileCount: Int = 0
        ) {
            self.state = state
            self.events = events
            self.adoptedUserIdentifier = adoptedUserIdentifier
            self.adoptedSessionHistory = adoptedSessionHistory
            self.importedEventCount = importedEventCount
            self.skippedEventCount = skippedEventCount
            self.unreadableFileCount = unreadableFileCount
        }
    }

    private enum Sources: Sendable {
        /// TelemetryDeck's own locations for the client's app id (Apple platforms only).
        case standard
        case custom(storage: (any ProcessorStorage)?, eventFiles: [URL])
        case disabled
    }

    private let sources: Sources

    private init(sources: Sources) {
        self.sources = sources
    }

    /// Imports from where TelemetryDeck's SDK keeps its data for the client's app id: its
    /// `UserDefaults` suite and the user's caches directory on Apple platforms. Elsewhere
    /// (Linux) there is nowhere to look: the run does nothing.
    public static let standard = TelemetryDeckImporter(sources: .standard)

    /// Imports nothing and sets no markers.
    public static let disabled = TelemetryDeckImporter(sources: .disabled)

    /// Imports from explicit places: tests, or an app that kept TelemetryDeck's data
    /// elsewhere (an app-group suite, say).
    ///
    /// - Parameters:
    ///   - storage: A storage shaped like TelemetryDeck's (its keys and formats); nil for none.
    ///   - eventFiles: TelemetryDeck event queues (JSON arrays of events), imported in this order.
    public init(storage: (any ProcessorStorage)?, eventFiles: [URL]) {
        self.sources = .custom(storage: storage, eventFiles: eventFiles)
    }

    /// Imports into `client` before it starts: identity and history into `client.storage`,
    /// events into the cache of the destination `destinationID` (default: the first one).
    ///
    /// Call it before `client.start()`: processors read their state when they start. Runs
    /// after the first one (for the same storage) do nothing.
    @discardableResult
    public func run(into client: TelemetryClient, destinationID: String? = nil) async -> Report {
        let storage: (any ProcessorStorage)?
        let eventFiles: [URL]
        switch sources {
        case .disabled:
            return Report(state: .skipped, events: .skipped)
        case .standard:
            (storage, eventFiles) = await Self.standardSources(appID: client.configuration.appID)
        case .custom(let customStorage, let customFiles):
            (storage, eventFiles) = (customStorage, customFiles)
        }
        // Nowhere to look (TelemetryDeck keeps nothing on this platform): leave no markers.
        if storage == nil && eventFiles.isEmpty {
            return Report(state: .nothingFound, events: .nothingFound)
        }
        let destination =
            if let destinationID { client.destinations.first { $0.id == destinationID } } else {
                client.destinations.first
            }
        var report = Report(state: .alreadyImported, events: .alreadyImported)
        await importState(from: storage, into: client, report: &report)
        await importEvents(from: eventFiles, into: destination?.cache, client: client, report: &report)
        return report
    }

    // MARK: State

    private func importState(
        from source: (any ProcessorStorage)?,
        into client: TelemetryClient,
        report: inout Report
    ) async {
        let storage = client.storage
        guard await !storage.bool(forKey: Keys.stateImported) else { return }
        let state: TelemetryDeckStoredState? =
            if let source { await TelemetryDeckStoredState.read(from: source, logger: client.logger) } else { nil }
        if let state, let history = state.history {
            report.state = .imported
            if let identifier = state.userIdentifier {
                let outcome = await UserIdentifierProcessor.adoptInstallationIdentifier(identifier, into: storage)
                report.adoptedUserIdentifier = outcome == .adopted
            }
            let outcome = await SessionTrackingProcessor.adoptImportedHistory(
                history,
                into: storage,
                now: client.clock.now,
                logger: client.logger
            )
            if case .adopted = outcome { report.adoptedSessionHistory = true }
            client.logger.log(
                .info,
                "TelemetryDeck import: adopted the user id: \(report.adoptedUserIdentifier), "
                    + "the session history: \(report.adoptedSessionHistory) (\(history.sessions.count) session(s))"
            )
        } else {
            report.state = .nothingFound
        }
        await storage.set(true, forKey: Keys.stateImported)
        await storage.flush()
    }

    // MARK: Events

    private func importEvents(
        from files: [URL],
        into cache: (any EventCaching)?,
        client: TelemetryClient,
        report: inout Report
    ) async {
        let storage = client.storage
        let logger = client.logger
        guard await !storage.bool(forKey: Keys.eventsImported) else { return }
        let present = files.filter { FileManager.default.fileExists(atPath: $0.path) }
        guard !present.isEmpty else {
            report.events = .nothingFound
            await storage.set(true, forKey: Keys.eventsImported)
            await storage.flush()
            return
        }

        var events: [Event] = []
        var consumed: [URL] = []
        for file in present {
            let data: Data
            do {
                data = try Data(contentsOf: file)
            } catch {
                logger.log(
                    .warning,
                    "TelemetryDeck import: \(file.path) could not be read; trying again next launch: \(error)"
                )
                report.events = .failed
                return
            }
            do {
                let contents = try TelemetryDeckEventFile.decode(data)
                events += contents.events
                report.skippedEventCount += contents.skippedEvents
                if contents.skippedEvents > 0 || contents.droppedValues > 0 {
                    logger.log(
                        .warning,
                        "TelemetryDeck import: \(file.lastPathComponent): skipped \(contents.skippedEvents) unreadable "
                            + "event(s) and \(contents.droppedValues) unreadable payload value(s)"
                    )
                }
                consumed.append(file)
            } catch {
                // Left in place, not read again (the marker is set below): nothing is deleted
                // that could not be read.
                report.unreadableFileCount += 1
                logger.log(
                    .warning,
                    "TelemetryDeck import: \(file.path) is not a readable event queue (\(data.count) bytes) "
                        + "and was skipped: \(error)"
                )
            }
        }

        let persistedOptOut = await storage.bool(forKey: TelemetryStorageKeys.analyticsDisabled)
        if client.isAnalyticsDisabled || persistedOptOut {
            report.events = .discarded
            logger.log(.info, "TelemetryDeck import: analytics are disabled; \(events.count) queued event(s) discarded")
        } else if !events.isEmpty {
            guard let cache else {
                logger.log(.warning, "TelemetryDeck import: no destination to queue \(events.count) event(s) in")
                report.events = .failed
                return
            }
            do {
                try await cache.append(events)
            } catch {
                logger.log(
                    .error,
                    "TelemetryDeck import: \(events.count) event(s) could not be cached; the files stay for the next "
                        + "launch: \(error)"
                )
                report.events = .failed
                return
            }
            report.events = .imported
            report.importedEventCount = events.count
            logger.log(.info, "TelemetryDeck import: \(events.count) queued event(s) moved to the cache")
        } else {
            report.events = report.unreadableFileCount > 0 ? .unreadable : .nothingFound
        }
        // The marker must be on disk before the files go, or a crash in between would lose
        // the events (files gone) or, the other way round, import them twice.
        await storage.set(true, forKey: Keys.eventsImported)
        await storage.flush()
        for file in consumed {
            do {
                try FileManager.default.removeItem(at: file)
            } catch {
                logger.log(
                    .warning,
                    "TelemetryDeck import: \(file.path) could not be removed (already imported): \(error)"
                )
            }
        }
    }

    // MARK: Standard locations

    /// TelemetryDeck's storage suite name for `appID`: `com.telemetrydeck.` + the last 12
    /// hex digits of SHA-256(appID).
    public static func suiteName(appID: String) -> String {
        "com.telemetrydeck." + String(SHA256Hex.digest(appID).suffix(12))
    }

    private static func standardSources(appID: String) async -> ((any ProcessorStorage)?, [URL]) {
        #if canImport(Darwin)
        return (await appleSuiteStorage(suiteName: suiteName(appID: appID)), appleEventFiles())
        #else
        // TelemetryDeck's SDK keeps nothing on Linux that could be found here.
        return (nil, [])
        #endif
    }
}
