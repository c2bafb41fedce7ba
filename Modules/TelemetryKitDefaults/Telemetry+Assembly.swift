import Dispatch
import TelemetryKitSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Darwin)
import Foundation  // app group containers
#endif

extension Telemetry {
    /// The id of the default destination (the ingest service).
    public static let defaultDestinationID = "ingest"

    /// The built-in processors, in their documented order.
    ///
    /// Remove one by type, insert your own anywhere:
    ///
    /// ```swift
    /// Telemetry.defaultProcessors().filter { $0 is SessionTrackingProcessor == false } + [MyProcessor()]
    /// ```
    public static func defaultProcessors(
        defaultUser: String? = nil,
        testMode: Bool? = nil,
        eventPrefix: String? = nil,
        parameterPrefix: String? = nil,
        sendSessionStartedEvent: Bool = true,
        defaultParameters: EventParameters = [:]
    ) -> [any EventProcessor] {
        defaultProcessors(
            defaultUser: defaultUser,
            testMode: testMode,
            eventPrefix: eventPrefix,
            parameterPrefix: parameterPrefix,
            sendSessionStartedEvent: sendSessionStartedEvent,
            defaultParameters: defaultParameters,
            appInfo: AppInfoProcessor()
        )
    }

    /// The built-in processors configured from `configuration` (what `initialize` uses when
    /// no processors are given).
    public static func defaultProcessors(for configuration: Config) -> [any EventProcessor] {
        defaultProcessors(
            defaultUser: configuration.defaultUser,
            testMode: configuration.testMode,
            eventPrefix: configuration.eventPrefix,
            parameterPrefix: configuration.parameterPrefix,
            sendSessionStartedEvent: configuration.sendSessionStartedEvent,
            defaultParameters: configuration.defaultParameters,
            // App version and build come from the configuration where no bundle exists.
            appInfo: AppInfoProcessor(appVersion: configuration.appVersion, buildNumber: configuration.buildNumber)
        )
    }

    /// The one list of the built-in processors, in order.
    private static func defaultProcessors(
        defaultUser: String?,
        testMode: Bool?,
        eventPrefix: String?,
        parameterPrefix: String?,
        sendSessionStartedEvent: Bool,
        defaultParameters: EventParameters,
        appInfo: AppInfoProcessor
    ) -> [any EventProcessor] {
        [
            PreviewFilterProcessor(),
            DefaultParametersProcessor(parameters: defaultParameters),
            DefaultPrefixProcessor(eventPrefix: eventPrefix, parameterPrefix: parameterPrefix),
            ValidationProcessor(),
            TestModeProcessor(override: testMode),
            UserIdentifierProcessor(defaultUser: defaultUser),
            SessionTrackingProcessor(sendSessionStartedEvent: sendSessionStartedEvent),
            DeviceProcessor(),
            appInfo,
            LocaleProcessor(),
            CalendarProcessor(),
            AccessibilityProcessor(),
            TrialConversionProcessor(),
        ]
    }

    /// The directory the configuration names for the cache and the storage: `dataDirectory`,
    /// else the app group's container, else nil (the platform's default directory).
    ///
    /// - Parameter appGroupContainer: the container of an app group, nil when there is none
    ///   (tests pass their own; the system's is Foundation's on Apple platforms).
    static func dataDirectory(
        for configuration: Config,
        appGroupContainer: (String) -> URL? = systemAppGroupContainer
    ) throws(TelemetryError) -> URL? {
        if let directory = configuration.dataDirectory { return directory }
        guard let group = configuration.appGroupIdentifier else { return nil }
        guard let container = appGroupContainer(group) else {
            throw TelemetryError(
                .unusableDataDirectory,
                "Telemetry.Config.appGroupIdentifier '\(group)' has no container: add the app group to the "
                    + "entitlements of the app and of each extension. Where there are no app groups (Linux, "
                    + "servers), set Telemetry.Config.dataDirectory to a directory the processes share."
            )
        }
        return container.appendingPathComponent("TelemetryKit", isDirectory: true)
            .appendingPathComponent(configuration.appID, isDirectory: true)
    }

    /// The app group container Foundation gives this process; nil without the entitlement
    /// and on platforms without app groups.
    static func systemAppGroupContainer(_ identifier: String) -> URL? {
        #if canImport(Darwin)
        return FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: identifier)
        #else
        return nil
        #endif
    }

    /// The persistent processor storage in the data directory.
    static func defaultStorage(
        for configuration: Config,
        logger: any Logging
    ) throws(TelemetryError) -> any ProcessorStorage {
        do {
            // Not `PlistProcessorStorage(…)`: see `openStorage`.
            return try PropertyListStorageFormat.openStorage(
                appID: configuration.appID,
                directory: try dataDirectory(for: configuration),
                logger: logger
            )
        } catch {
            throw TelemetryError(.unusableDataDirectory, "\(error)")
        }
    }

    /// The HTTP ingest transmitter for `{apiBaseURL}/v2/namespace/{namespace}/`.
    static func defaultTransmitter(
        for configuration: Config,
        logger: any Logging,
        clock: any TelemetryClock
    ) throws(TelemetryError) -> any EventTransmitting {
        do {
            return try HTTPEventTransmitter(
                configuration: .init(
                    apiBaseURL: configuration.apiBaseURL,
                    namespace: configuration.namespace,
                    allowsInsecureHTTP: configuration.allowInsecureHTTP
                ),
                logger: logger,
                clock: clock
            )
        } catch {
            throw TelemetryError(.invalidEndpoint, "\(error)")
        }
    }

    /// The folder of the default queue and storage: the configured or shared one, else the
    /// app's own data folder.
    static func defaultDataDirectory(for configuration: Config) throws -> URL {
        if let directory = try dataDirectory(for: configuration) { return directory }
        return try StorageDirectory.applicationSupport(appID: configuration.appID)
    }

    /// The durable queue of the default destination: SQLite in the data directory.
    static func defaultCache(
        for configuration: Config,
        logger: any Logging,
        clock: any TelemetryClock
    ) throws(TelemetryError) -> SQLiteEventCache {
        do {
            let directory = try defaultDataDirectory(for: configuration)
            return try SQLiteEventCache(
                fileURL: directory.appendingPathComponent("events-\(defaultDestinationID).sqlite"),
                maxEventAge: configuration.deliveryPolicy.maxEventAge,
                logger: logger,
                clock: clock
            )
        } catch {
            throw TelemetryError(.unusableDataDirectory, "\(error)")
        }
    }

    /// What ``makeClient(configuration:processors:cache:transmitter:logger:storage:destinations:transformations:clock:)``
    /// built: the client, and the default queue, which may still be opening.
    struct AssembledClient: Sendable {
        let client: TelemetryClient
        /// The default queue (nil when a cache was given); its file opens on its own I/O queue.
        let defaultQueue: SQLiteEventCache?

        /// Returns once the default queue is open, or throws why it could not be opened
        /// (`.unusableDataDirectory`). A client whose queue did not open must not run.
        func defaultQueueOpened() async throws(TelemetryError) {
            do {
                try await defaultQueue?.opened()
            } catch {
                throw TelemetryError(.unusableDataDirectory, "\(error)")
            }
        }
    }

    /// Builds the client `initialize` starts, without waiting for the default queue's file to
    /// open: it opens on the queue's own I/O thread meanwhile (see `SQLiteEventCache`), and
    /// ``AssembledClient/defaultQueueOpened()`` says whether it did. An invalid endpoint is
    /// thrown first, then an unusable data directory from the storage or the queue.
    static func makeClient(
        configuration: Config,
        processors: [any EventProcessor]?,
        cache: (any EventCaching)?,
        transmitter: (any EventTransmitting)?,
        logger: any Logging,
        storage: (any ProcessorStorage)?,
        destinations: [Destination],
        transformations: [any EventTransformation],
        clock: any TelemetryClock
    ) async throws(TelemetryError) -> AssembledClient {
        if cache == nil || storage == nil {
            applyFileProtection(for: configuration)
        }
        let madeTransmitter = try overrideOrDefault(transmitter) { () throws(TelemetryError) in
            try defaultTransmitter(for: configuration, logger: logger, clock: clock)
        }
        let madeStorage = try overrideOrDefault(storage) { () throws(TelemetryError) in
            try defaultStorage(for: configuration, logger: logger)
        }
        let defaultQueue: SQLiteEventCache?
        let mainCache: any EventCaching
        if let cache {
            (defaultQueue, mainCache) = (nil, cache)
        } else {
            let queue = try defaultCache(for: configuration, logger: logger, clock: clock)
            (defaultQueue, mainCache) = (queue, queue)
        }
        let mainDestination = Destination(
            id: defaultDestinationID,
            transmitter: madeTransmitter,
            cache: mainCache,
            policy: configuration.deliveryPolicy
        )
        let processors = processors ?? defaultProcessors(for: configuration)
        let client = TelemetryClient(
            configuration: .init(
                appID: configuration.appID,
                salt: configuration.salt,
                shutdownTimeout: configuration.shutdownTimeout
            ),
            processors: processors,
            destinations: [mainDestination] + destinations,
            transformations: transformations,
            storage: madeStorage,
            logger: logger,
            clock: clock
        )
        return AssembledClient(client: client, defaultQueue: defaultQueue)
    }
}

/// `override`, else `makeDefault()`: the standard `??` would turn the default's typed
/// `TelemetryError` into an untyped error.
private func overrideOrDefault<Value>(
    _ override: Value?,
    _ makeDefault: () throws(TelemetryError) -> Value
) throws(TelemetryError) -> Value {
    if let override { return override }
    return try makeDefault()
}
