import TelemetryKitSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Turns an input and its accumulated context into an `Event`.
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
    private let metadataCache = MetadataCache()
    private let sessionStrings = SessionStringCache()

    public init(appID: String, salt: String = "", logger: any Logging = StandardErrorLogger()) {
        self.appID = appID
        self.salt = salt
        self.logger = logger
        self.hashCache = HashCache(salt: salt)
    }

    /// Finalizes one event.
    public func finalize(_ input: EventInput, context: EventContext) -> Event {
        let (metadata, metadataHasNonFinite) = metadataCache.metadata(of: context)
        var shared = metadata
        var own = input.parameters.values
        var floatValue = input.floatValue
        if let value = floatValue, !value.isFinite {
            logger.log(.warning, "floatValue \(value) is not a finite number and was dropped", eventName: input.name)
            floatValue = nil
        }
        // Context metadata is checked when it is merged (and cached); here only what may be new.
        if metadataHasNonFinite || own.contains(where: { $0.value.isNonFiniteNumber }) {
            // Rare: one flat payload with the non-finite numbers as strings.
            for (key, value) in own { shared[key] = value }
            own = shared
            shared = [:]
            for (key, value) in own where value.isNonFiniteNumber {
                logger.log(
                    .warning,
                    "parameter '\(key)' is not a finite number; sent as a string",
                    eventName: input.name
                )
                own[key] = .string(value.stringValue)
            }
        }
        // The payload stays two layers: the (shared, cached) metadata and the input's own
        // parameters on top, so no per-event copy of the metadata is made.
        let receivedAt = ISO8601.wholeMilliseconds(notBefore: input.timestamp)
        return Event(
            id: EventID.make(at: receivedAt),
            appID: appID,
            type: input.name,
            clientUser: clientUser(for: context.userIdentifier),
            sessionID: context.sessionID.map(sessionStrings.string(for:)),
            receivedAt: receivedAt,
            sharedPayload: shared,
            ownPayload: own,
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

/// Remembers the string form of the current session id (one session serves many events).
private final class SessionStringCache: Sendable {
    private let last = Locked<(UUID, String)?>(nil)

    func string(for id: UUID) -> String {
        if let (cachedID, string) = last.current, cachedID == id { return string }
        let string = id.uuidString
        last.set((id, string))
        return string
    }
}

/// Merges context metadata, reusing the previous result when an event carries the same
/// precomputed dictionaries as the one before (the common case: device, app, locale and
/// session facts change rarely). Identity is the dictionaries' storage; the cache keeps the
/// source dictionaries alive, so an address cannot be reused for other contents while cached.
private final class MetadataCache: Sendable {
    private struct Entry {
        var identities: [UInt] = []
        var sources: [[String: PayloadValue]] = []
        var merged: [String: PayloadValue] = [:]
        var hasNonFinite = false
    }

    private let entry = Locked(Entry())

    /// The merged metadata and whether it contains non-finite numbers.
    func metadata(of context: EventContext) -> ([String: PayloadValue], Bool) {
        guard PayloadStorageIdentity.isAvailable, context.consistsOfDictionaries else {
            var payload = [String: PayloadValue](minimumCapacity: context.estimatedCount)
            context.apply(to: &payload)
            return (payload, payload.values.contains { $0.isNonFiniteNumber })
        }
        if context.fragments.isEmpty {
            return ([:], false)
        }
        // The hit is checked in place: nothing is allocated or retained per event.
        if let hit = entry.withLock({ Self.matches($0.identities, context) ? ($0.merged, $0.hasNonFinite) : nil }) {
            return hit
        }
        let dictionaries = context.dictionaryFragments ?? []
        let identities = dictionaries.map(PayloadStorageIdentity.of)
        var merged = [String: PayloadValue](minimumCapacity: context.estimatedCount)
        context.apply(to: &merged)
        let hasNonFinite = merged.values.contains { $0.isNonFiniteNumber }
        entry.withLock { entry in
            entry = Entry(identities: identities, sources: dictionaries, merged: merged, hasNonFinite: hasNonFinite)
        }
        return (merged, hasNonFinite)
    }

    /// Whether `context` adds exactly the dictionaries with these identities, in this order.
    private static func matches(_ identities: [UInt], _ context: EventContext) -> Bool {
        guard identities.count == context.fragments.count else { return false }
        for index in identities.indices {
            guard case .values(let values) = context.fragments[index],
                PayloadStorageIdentity.of(values) == identities[index]
            else { return false }
        }
        return true
    }
}

/// The shapes of a context's metadata that the merge above looks for; read by nobody else.
extension EventContext {
    /// The number of values an `apply` may insert; used to reserve capacity.
    var estimatedCount: Int {
        var total = 0
        for fragment in fragments {
            switch fragment {
            case .value: total += 1
            case .values(let values): total += values.count
            case .removal, .original: break
            }
        }
        return total
    }

    /// Whether every fragment is a whole dictionary (the common shape: processors add
    /// precomputed dictionaries).
    var consistsOfDictionaries: Bool {
        fragments.allSatisfy { fragment in
            if case .values = fragment { return true }
            return false
        }
    }

    /// The added dictionaries in order, when every fragment is a whole dictionary; nil otherwise.
    var dictionaryFragments: [[String: PayloadValue]]? {
        var result = [[String: PayloadValue]]()
        result.reserveCapacity(fragments.count)
        for fragment in fragments {
            guard case .values(let values) = fragment else { return nil }
            result.append(values)
        }
        return result
    }
}
