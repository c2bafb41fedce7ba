#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns an input and its accumulated context into an ``Event``.
///
/// - payload: the context metadata, then the input parameters on top (input wins);
/// - clientUser: lowercase hex SHA-256 of the user identifier followed by the salt, where a
///   missing identifier is `"unknown user"`;
/// - id: a new UUID; receivedAt: the input's timestamp (millisecond precision);
/// - non-finite numbers (NaN, ±∞) have no JSON form: a non-finite `floatValue` is dropped
///   and non-finite parameter values are sent as strings, each with a logged warning.
public struct EventFinalizer: Sendable {
    /// The identifier hashed when no processor set one.
    public static let unknownUser = "unknown user"

    public let appID: String
    public let salt: String
    public let logger: any Logging
    private let hashCache: HashCache

    public init(appID: String, salt: String = "", logger: any Logging = StandardErrorLogger()) {
        self.appID = appID
        self.salt = salt
        self.logger = logger
        self.hashCache = HashCache()
    }

    /// Finalizes one event.
    public func finalize(_ input: EventInput, context: EventContext) -> Event {
        var payload = [String: PayloadValue](minimumCapacity: context.estimatedCount + input.parameters.count)
        context.apply(to: &payload)
        for (key, value) in input.parameters.values {
            payload[key] = value
        }
        var floatValue = input.floatValue
        if let value = floatValue, !value.isFinite {
            logger.log(.warning, "floatValue \(value) is not a finite number and was dropped", eventName: input.name)
            floatValue = nil
        }
        for (key, value) in payload where value.isNonFiniteNumber {
            logger.log(.warning, "parameter '\(key)' is not a finite number; sent as a string", eventName: input.name)
            payload[key] = .string(value.stringValue)
        }
        return Event(
            id: UUID(),
            appID: appID,
            type: input.name,
            clientUser: clientUser(for: context.userIdentifier),
            sessionID: context.sessionID?.uuidString,
            receivedAt: ISO8601.truncatedToMilliseconds(input.timestamp),
            payload: payload,
            floatValue: floatValue,
            isTestMode: context.isTestMode ?? false
        )
    }

    /// The hashed form of `userIdentifier` (or of ``unknownUser``) with this finalizer's salt.
    public func clientUser(for userIdentifier: String?) -> String {
        let identifier = userIdentifier ?? EventFinalizer.unknownUser
        return hashCache.hash(identifier + salt)
    }
}

/// Remembers the last few hashes: the same user is hashed for almost every event.
private final class HashCache: Sendable {
    private let entries = Locked([String: String]())

    func hash(_ value: String) -> String {
        if let hit = entries.withLock({ $0[value] }) { return hit }
        let digest = SHA256Hex.digest(value)
        entries.withLock { entries in
            if entries.count >= 16 { entries.removeAll(keepingCapacity: true) }
            entries[value] = digest
        }
        return digest
    }
}
