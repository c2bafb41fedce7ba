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
        self.hashCache = HashCache(salt: salt)
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
            id: EventID.make(),
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
        hashCache.hash(userIdentifier ?? EventFinalizer.unknownUser)
    }
}

/// Remembers hashes: the same user is hashed for almost every event.
private final class HashCache: Sendable {
    private struct State {
        var lastIdentifier: String?
        var lastDigest = ""
        var entries: [String: String] = [:]
    }

    private let state = Locked(State())
    private let salt: String

    init(salt: String) {
        self.salt = salt
    }

    func hash(_ identifier: String) -> String {
        let cached = state.withLock { state -> String? in
            if state.lastIdentifier == identifier { return state.lastDigest }
            if let hit = state.entries[identifier] {
                state.lastIdentifier = identifier
                state.lastDigest = hit
                return hit
            }
            return nil
        }
        if let cached { return cached }
        let digest = SHA256Hex.digest(identifier + salt)
        state.withLock { state in
            if state.entries.count >= 64 { state.entries.removeAll(keepingCapacity: true) }
            state.entries[identifier] = digest
            state.lastIdentifier = identifier
            state.lastDigest = digest
        }
        return digest
    }
}
