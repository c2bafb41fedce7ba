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

    /// The durable queue of the default destination: SQLite in the data directory.
    static func defaultCache(
        for configuration: Config,
        logger: any Logging,
        clock: any TelemetryClock
    ) throws(TelemetryError) -> SQLiteEventCache {
        do {
            let directory =
                try dataDirectory(for: configuration) ?? StorageDirectory.applicationSupport(appID: configuration.appID)
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

    /// Builds the client `initialize` starts.
    ///
    /// Why the default queue opens on another thread: opening the SQLite file (creating it on
    /// an app's first launch) is the largest single cost of `initialize` in a new process,
    /// about as long as building the storage and the processors together. It runs on a
    /// dispatch thread while those are built here, so a launch pays for the longer of the two
    /// rather than both (see the README's durable-queue benchmarks). Errors keep their order:
    /// an invalid endpoint first, then an unusable data directory from the cache, then from
    /// the storage.
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
    ) async throws(TelemetryError) -> TelemetryClient {
        // Each default is built only when no override is given.
        var openingCache: OpeningOffThread<SQLiteEventCache>?
        if cache == nil {
            openingCache = OpeningOffThread { () throws(TelemetryError) in
                try defaultCache(for: configuration, logger: logger, clock: clock)
            }
        }
        let madeTransmitter: any EventTransmitting
        do {
            madeTransmitter = try overrideOrDefault(transmitter) { () throws(TelemetryError) in
                try defaultTransmitter(for: configuration, logger: logger, clock: clock)
            }
        } catch {
            _ = await openingCache?.result  // nothing of it outlives the failed call
            throw error
        }
        let madeStorage = Made { () throws(TelemetryError) in
            try overrideOrDefault(storage) { () throws(TelemetryError) in
                try defaultStorage(for: configuration, logger: logger)
            }
        }
        let processors = processors ?? defaultProcessors(for: configuration)
        let mainDestination: Destination
        if let cache {
            mainDestination = Destination(
                id: defaultDestinationID,
                transmitter: madeTransmitter,
                cache: cache,
                policy: configuration.deliveryPolicy
            )
        } else {
            // Non-nil: made above exactly when no cache was given.
            mainDestination = Destination(
                id: defaultDestinationID,
                transmitter: madeTransmitter,
                callerExecutorCache: try await openingCache!.result.get(),
                policy: configuration.deliveryPolicy
            )
        }
        return TelemetryClient(
            configuration: .init(
                appID: configuration.appID,
                salt: configuration.salt,
                shutdownTimeout: configuration.shutdownTimeout
            ),
            processors: processors,
            destinations: [mainDestination] + destinations,
            transformations: transformations,
            storage: try madeStorage.get(),
            logger: logger,
            clock: clock
        )
    }
}

/// A value made on a dispatch thread, started at once (blocking file work, kept off the
/// caller's thread and the cooperative pool), and awaited once, later, through `result`.
///
/// The thread is a serial queue's of its own, not a global queue's: the global queues share
/// as many threads as there are cores, and in a launch those are busy (Swift's cooperative
/// pool runs on them), so the opening sometimes waited 0.7–3 ms for one to come free (5 of 34
/// launches in a new process on 2 cores); a queue of its own gets a thread at once.
private final class OpeningOffThread<Value: Sendable>: Sendable {
    private enum State {
        case running
        case awaited(CheckedContinuation<Made<Value>, Never>)
        case made(Made<Value>)
    }

    private let state = Locked(State.running)

    init(_ make: @escaping @Sendable () throws(TelemetryError) -> Value) {
        DispatchQueue(label: "TelemetryKit.opening", qos: .userInitiated).async { [state] in
            let result = Made { () throws(TelemetryError) in try make() }
            let waiter = state.withLock { state -> CheckedContinuation<Made<Value>, Never>? in
                defer { state = .made(result) }
                if case .awaited(let continuation) = state { return continuation }
                return nil
            }
            waiter?.resume(returning: result)
        }
    }

    var result: Made<Value> {
        get async {
            // Made already: no suspension, whose resumption would wait for a pool thread.
            if case .made(let result) = state.current { return result }
            return await withCheckedContinuation { continuation in
                let made = state.withLock { state -> Made<Value>? in
                    if case .made(let result) = state { return result }
                    state = .awaited(continuation)
                    return nil
                }
                if let made { continuation.resume(returning: made) }
            }
        }
    }
}

/// A default made, or the error that stopped it: a `Result` without the `Failure: Error`
/// requirement, which made the runtime search its conformance tables (about 0.1 ms on Linux,
/// in every launch) for `TelemetryError`'s conformance the first time the type was used.
private enum Made<Value> {
    case value(Value)
    case failure(TelemetryError)

    init(_ make: () throws(TelemetryError) -> Value) {
        do {
            self = .value(try make())
        } catch {
            self = .failure(error)
        }
    }

    func get() throws(TelemetryError) -> Value {
        switch self {
        case .value(let value): return value
        case .failure(let error): throw error
        }
    }
}

extension Made: Sendable where Value: Sendable {}

/// `override`, else `makeDefault()`: the standard `??` would turn the default's typed
/// `TelemetryError` into an untyped error.
private func overrideOrDefault<Value>(
    _ override: Value?,
    _ makeDefault: () throws(TelemetryError) -> Value
) throws(TelemetryError) -> Value {
    if let override { return override }
    return try makeDefault()
}
