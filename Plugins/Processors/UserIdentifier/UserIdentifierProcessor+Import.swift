public import TelemetryKit

extension UserIdentifierProcessor {
    /// What ``adoptInstallationIdentifier(_:into:)`` did.
    public enum AdoptionOutcome: Sendable, Hashable {
        /// The identifier was saved; the next `start` uses it.
        case adopted
        /// The storage already has an identifier of its own, which stays.
        case keptExisting
        /// The identifier was empty or blank and was ignored.
        case ignoredBlank
    }

    /// Makes `identifier` this install's persisted platform default, unless the storage
    /// already holds one.
    ///
    /// An app that moves to TelemetryKit from another SDK keeps its users' identity this
    /// way: the identifier that SDK persisted (TelemetryDeck's `defaultUserIdentifier`)
    /// becomes the one stored under ``Keys/installationIdentifier``, so events keep hashing
    /// to the same `clientUser` (with the same salt). Call it before the client starts, on
    /// the storage the client will use:
    ///
    /// ```swift
    /// let outcome = await UserIdentifierProcessor.adoptInstallationIdentifier(legacyID, into: storage)
    /// ```
    ///
    /// An identifier TelemetryKit already persisted is never replaced, so calling this again
    /// (on every launch, say) changes nothing. Where the platform default is the vendor
    /// identifier (iOS, tvOS, visionOS) or a `defaultUser` is configured, the stored value is
    /// kept but not used, as before.
    ///
    /// - Parameters:
    ///   - identifier: The identifier to adopt; blank ones are ignored.
    ///   - storage: The storage the client's processors start with.
    @discardableResult
    public static func adoptInstallationIdentifier(
        _ identifier: String,
        into storage: any ProcessorStorage
    ) async -> AdoptionOutcome {
        guard !identifier.allSatisfy(\.isWhitespace) else { return .ignoredBlank }
        if let existing = await storage.string(forKey: Keys.installationIdentifier), !existing.isEmpty {
            return .keptExisting
        }
        await storage.set(identifier, forKey: Keys.installationIdentifier)
        return .adopted
    }
}
