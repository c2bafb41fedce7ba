public import TelemetryKit
import TelemetryKitSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(UIKit) && !os(watchOS)
import UIKit
#endif

/// Sets the raw user identifier of every event; the finalizer hashes it with the salt.
///
/// The first non-empty one of these wins:
/// 1. the event's own `customUserID`;
/// 2. the identifier already in the context, which the client seeds from
///    `TelemetryClient.setUserIdentifier(_:)`;
/// 3. the identifier set with ``setUserIdentifier(_:)`` (the ``UserIdentifierManaging``
///    capability, which `Telemetry.setUserIdentifier` reaches), persisted under
///    ``Keys/assignedUserIdentifier`` and read again at the next `start`;
/// 4. the `defaultUser` given to `init`;
/// 5. the platform default: on iOS, tvOS and visionOS the device's `identifierForVendor`;
///    elsewhere (Linux, macOS, watchOS, Windows), and when the vendor identifier is not
///    available, a random UUID created on first start and persisted in ``ProcessorStorage``
///    under ``Keys/installationIdentifier``, so that every install has its own. A storage
///    that TelemetryDeck's SDK used keeps the id it persisted
///    (``Keys/telemetryDeckUserIdentifier``), adopted on the first start.
///
/// The platform default is resolved once, in `start` (only when no `defaultUser` is given);
/// `process` costs a lock read at most. An event processed before `start` gets an
/// in-memory UUID, which `start` then persists if the storage has none yet.
public struct UserIdentifierProcessor: UserIdentifierManaging, SynchronousEventProcessor {
    /// The identifier used when neither the event nor the client names a user.
    public let defaultUser: String?
    private let platformDefault = Locked<String?>(nil)
    private let assigned = Locked(Assigned())

    /// The identifier set with ``setUserIdentifier(_:)``, and where it persists.
    private struct Assigned {
        var user: String?
        /// Set by ``setUserIdentifier(_:)`` before `start`: the stored one must not override it.
        var setBeforeStart = false
        var storage: (any ProcessorStorage)?
    }

    /// Creates the processor.
    ///
    /// - Parameter defaultUser: Used when the event and the client set no identifier; `nil`
    ///   (or empty) falls back to the platform default.
    public init(defaultUser: String? = nil) {
        self.defaultUser = defaultUser.flatMap { $0.isEmpty ? nil : $0 }
    }

    public func start(storage: any ProcessorStorage, logger: any Logging, emitter: any EventSending) async {
        let stored = await storage.string(forKey: Keys.assignedUserIdentifier)
        let setBeforeStart = assigned.withLock { assigned -> Bool in
            assigned.storage = storage
            if !assigned.setBeforeStart { assigned.user = stored.flatMap { $0.isEmpty ? nil : $0 } }
            return assigned.setBeforeStart
        }
        if setBeforeStart {
            await storage.set(assigned.current.user, forKey: Keys.assignedUserIdentifier)
        }
        guard defaultUser == nil else { return }
        if let reset = await storage.string(forKey: Keys.resetIdentifier), !reset.isEmpty {
            platformDefault.set(reset)
            return
        }
        #if canImport(UIKit) && !os(watchOS)
        if let vendorIdentifier = await Self.identifierForVendor() {
            platformDefault.set(vendorIdentifier)
            return
        }
        #endif
        if let stored = await storage.string(forKey: Keys.installationIdentifier), !stored.isEmpty {
            platformDefault.set(stored)
            return
        }
        // A storage TelemetryDeck's SDK used keeps its user: the same id, so the same
        // `clientUser` hash (adopted once; from then on the key above is set).
        if let legacy = await storage.string(forKey: Keys.telemetryDeckUserIdentifier),
            case .adopted = await Self.adoptInstallationIdentifier(legacy, into: storage)
        {
            platformDefault.set(legacy)
            return
        }
        let created = installationIdentifier()
        await storage.set(created, forKey: Keys.installationIdentifier)
    }

    public func process(_ input: inout EventInput, context: inout EventContext) throws {
        if let custom = input.customUserID, !custom.isEmpty {
            context.userIdentifier = custom
        } else if let seeded = context.userIdentifier, !seeded.isEmpty {
            // Set by the client (`setUserIdentifier`): keep it.
        } else if let assigned = assigned.current.user {
            context.userIdentifier = assigned
        } else if let defaultUser {
            context.userIdentifier = defaultUser
        } else {
            context.userIdentifier = installationIdentifier()
        }
    }

    /// The identifier events get when neither they nor the client name one.
    public func currentUserIdentifier() async -> String? {
        assigned.current.user ?? defaultUser ?? platformDefault.current
    }

    /// Sets the identifier of later events, this launch's and the next ones'; `nil` (or empty)
    /// returns to the default.
    ///
    /// Returns with the value set in the storage (before `start`: `start` stores it); the
    /// storage writes it to disk on its `flush()`, which `Telemetry.setUserIdentifier` awaits.
    public func setUserIdentifier(_ value: String?) async {
        let user = value.flatMap { $0.isEmpty ? nil : $0 }
        let storage = assigned.withLock { assigned -> (any ProcessorStorage)? in
            assigned.user = user
            if assigned.storage == nil { assigned.setBeforeStart = true }
            return assigned.storage
        }
        await storage?.set(user, forKey: Keys.assignedUserIdentifier)
    }

    /// Clears the identifier set with ``setUserIdentifier(_:)`` and gives the install a new
    /// random identifier in place of the platform default (which, as the vendor identifier,
    /// may not be rotatable), persisted under ``Keys/resetIdentifier``. A `defaultUser` given
    /// to `init` stays: the app chose it.
    public func resetIdentity() async {
        let created = UUID().uuidString
        platformDefault.set(created)
        let storage = assigned.withLock { assigned -> (any ProcessorStorage)? in
            assigned.user = nil
            return assigned.storage
        }
        await storage?.set(nil as String?, forKey: Keys.assignedUserIdentifier)
        await storage?.set(created, forKey: Keys.resetIdentifier)
    }

    /// Forgets what `start` read, so that a later `start` (after the app erased its data)
    /// resolves everything afresh from the storage.
    public func stop() async {
        platformDefault.set(nil)
        assigned.set(Assigned())
    }

    /// The platform default, creating a random one if `start` has not provided one.
    private func installationIdentifier() -> String {
        platformDefault.withLock { current in
            if let current { return current }
            let created = UUID().uuidString
            current = created
            return created
        }
    }

    #if canImport(UIKit) && !os(watchOS)
    /// The vendor identifier; `nil` right after a device restart before first unlock.
    private static func identifierForVendor() async -> String? {
        await MainActor.run { UIDevice.current.identifierForVendor?.uuidString }
    }
    #endif
}
