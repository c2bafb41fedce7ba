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
///    capability, which `Telemetry.setUserIdentifier` reaches);
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
    private let assignedUser = Locked<String?>(nil)

    /// Creates the processor.
    ///
    /// - Parameter defaultUser: Used when the event and the client set no identifier; `nil`
    ///   (or empty) falls back to the platform default.
    public init(defaultUser: String? = nil) {
        self.defaultUser = defaultUser.flatMap { $0.isEmpty ? nil : $0 }
    }

    public func start(storage: any ProcessorStorage, logger: any Logging, emitter: any EventSending) async {
        guard defaultUser == nil else { return }
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
        } else if let assigned = assignedUser.current {
            context.userIdentifier = assigned
        } else if let defaultUser {
            context.userIdentifier = defaultUser
        } else {
            context.userIdentifier = installationIdentifier()
        }
    }

    /// The identifier events get when neither they nor the client name one.
    public func currentUserIdentifier() async -> String? {
        assignedUser.current ?? defaultUser ?? platformDefault.current
    }

    /// Sets the identifier of later events; `nil` (or empty) returns to the default.
    public func setUserIdentifier(_ value: String?) async {
        assignedUser.set(value.flatMap { $0.isEmpty ? nil : $0 })
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
