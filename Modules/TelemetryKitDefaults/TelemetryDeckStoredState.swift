#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What TelemetryDeck's Swift SDK (v3, or v2 before it) kept in its `ProcessorStorage`, read
/// into the terms the TelemetryKit processors adopt: the persisted user id
/// (`defaultUserIdentifier`, macOS and Linux; iOS used the vendor id) and the session history
/// (``SessionTrackingProcessor/telemetryDeckHistory(in:logger:)`` reads its keys).
struct TelemetryDeckStoredState: Sendable {
    /// The key of the persisted user identifier.
    static let defaultUserIdentifierKey = UserIdentifierProcessor.Keys.telemetryDeckUserIdentifier
    /// Every key TelemetryDeck's SDK kept (what the importer copies from v3's suite).
    static let allKeys: [String] = {
        typealias History = SessionTrackingProcessor.TelemetryDeckKeys
        return [
            defaultUserIdentifierKey, History.installID, History.firstSessionDate, History.recentSessions,
            History.deletedSessionsCount, History.distinctDaysUsed,
        ]
    }()

    /// The persisted user identifier, if any.
    var userIdentifier: String?
    /// The session history; nil when the storage holds nothing of TelemetryDeck's (a fresh
    /// install, or an app that never used it). A user id alone still marks the install as
    /// known (an empty history).
    var history: SessionTrackingProcessor.ImportedHistory?

    /// Reads TelemetryDeck's keys from `storage`.
    static func read(from storage: any ProcessorStorage, logger: any Logging) async -> TelemetryDeckStoredState {
        let userIdentifier = await storage.string(forKey: defaultUserIdentifierKey)
        var history = await SessionTrackingProcessor.telemetryDeckHistory(in: storage, logger: logger)
        if history == nil, userIdentifier != nil {
            history = SessionTrackingProcessor.ImportedHistory()
        }
        return TelemetryDeckStoredState(
            userIdentifier: userIdentifier.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 },
            history: history
        )
    }
}

/// Decodes a `T` where possible and nil otherwise, so that one bad element of an array does
/// not make the whole array unreadable.
struct Lenient<T: Decodable>: Decodable {
    let value: T?

    init(from decoder: any Decoder) throws {
        value = try? T(from: decoder)
    }
}
