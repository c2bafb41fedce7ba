#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What TelemetryDeck's Swift SDK (v3, or v2 before it) kept in its `ProcessorStorage`, read
/// into the terms the TelemetryKit processors adopt.
///
/// The formats, key by key (`TelemetryDeckStoredState.Keys`):
/// - `defaultUserIdentifier` (String): the persisted user id (macOS; iOS used the vendor id).
/// - `installID` (String): set by v3 on its first start, so its presence means "v3 data".
/// - `firstSessionDate` (String): `yyyy-MM-dd`.
/// - `recentSessions` (Data): a JSON array of `{"st": date, "dn": seconds}`. v3 wrote `st`
///   with `JSONEncoder`'s default strategy (seconds since 2001-01-01); v2 wrote seconds since
///   1970. As v3's own migrator does, data without an `installID` is read as v2's.
/// - `deletedSessionsCount` (Int).
/// - `distinctDaysUsed`: v3 a JSON array of `yyyy-MM-dd` (Data, or a String holding the JSON);
///   v2 a property-list string array (read with `stringArray(forKey:)`).
///
/// Damaged values are skipped with a warning; everything readable is still used.
struct TelemetryDeckStoredState: Sendable {
    /// The keys of TelemetryDeck's storage.
    enum Keys {
        static let defaultUserIdentifier = "defaultUserIdentifier"
        static let installID = "installID"
        static let firstSessionDate = "firstSessionDate"
        static let recentSessions = "recentSessions"
        static let deletedSessionsCount = "deletedSessionsCount"
        static let distinctDaysUsed = "distinctDaysUsed"

        static let all = [
            defaultUserIdentifier, installID, firstSessionDate, recentSessions, deletedSessionsCount, distinctDaysUsed,
        ]
    }

    /// The persisted user identifier, if any.
    var userIdentifier: String?
    /// The session history; nil when the storage holds nothing of TelemetryDeck's (a fresh
    /// install, or an app that never used it).
    var history: SessionTrackingProcessor.ImportedHistory?

    /// Reads TelemetryDeck's keys from `storage`.
    static func read(from storage: any ProcessorStorage, logger: any Logging) async -> TelemetryDeckStoredState {
        let userIdentifier = await storage.string(forKey: Keys.defaultUserIdentifier)
        let installID = await storage.string(forKey: Keys.installID)
        let firstSessionDate = await storage.string(forKey: Keys.firstSessionDate)
        let deletedSessionsCount = await storage.integer(forKey: Keys.deletedSessionsCount)
        var sessionsData = await storage.data(forKey: Keys.recentSessions)
        if sessionsData == nil, let text = await storage.string(forKey: Keys.recentSessions) {
            sessionsData = Data(text.utf8)
        }
        let days = await readDistinctDays(from: storage, logger: logger)

        let found =
            userIdentifier != nil || installID != nil || firstSessionDate != nil || sessionsData != nil
            || days != nil || deletedSessionsCount != 0
        guard found else { return TelemetryDeckStoredState(userIdentifier: nil, history: nil) }

        let sessions = sessionsData.map {
            decodeSessions($0, writtenByVersion3: installID != nil, logger: logger)
        }
        return TelemetryDeckStoredState(
            userIdentifier: userIdentifier.flatMap { $0.allSatisfy(\.isWhitespace) ? nil : $0 },
            history: SessionTrackingProcessor.ImportedHistory(
                sessions: sessions ?? [],
                deletedSessionsCount: deletedSessionsCount,
                firstSessionDate: firstSessionDate,
                distinctDays: days ?? []
            )
        )
    }

    /// `recentSessions`: every element with a numeric `st` and `dn`; others are skipped.
    static func decodeSessions(
        _ data: Data,
        writtenByVersion3: Bool,
        logger: any Logging
    ) -> [SessionTrackingProcessor.ImportedHistory.Session] {
        let entries: [StoredSession?]
        do {
            entries = try JSONDecoder().decode([Lenient<StoredSession>].self, from: data).map(\.value)
        } catch {
            logger.log(
                .warning,
                "TelemetryDeck import: the stored sessions (\(data.count) bytes) are unreadable and were skipped: \(error)"
            )
            return []
        }
        let sessions = entries.compactMap { entry -> SessionTrackingProcessor.ImportedHistory.Session? in
            guard let entry else { return nil }
            let start =
                writtenByVersion3
                ? Date(timeIntervalSinceReferenceDate: entry.st) : Date(timeIntervalSince1970: entry.st)
            return .init(start: start, seconds: entry.dn)
        }
        if sessions.count < entries.count {
            logger.log(
                .warning,
                "TelemetryDeck import: \(entries.count - sessions.count) of \(entries.count) stored session(s) "
                    + "were unreadable and skipped"
            )
        }
        return sessions
    }

    /// `distinctDaysUsed` in any of its three forms, or nil when absent or unreadable.
    private static func readDistinctDays(from storage: any ProcessorStorage, logger: any Logging) async -> [String]? {
        let json: Data?
        if let data = await storage.data(forKey: Keys.distinctDaysUsed) {
            json = data
        } else if let text = await storage.string(forKey: Keys.distinctDaysUsed) {
            json = Data(text.utf8)
        } else {
            return await storage.stringArray(forKey: Keys.distinctDaysUsed)
        }
        guard let json else { return nil }
        do {
            return try JSONDecoder().decode([String].self, from: json)
        } catch {
            logger.log(
                .warning,
                "TelemetryDeck import: the stored days of use are unreadable and were skipped: \(error)"
            )
            return nil
        }
    }

    /// One element of `recentSessions`.
    private struct StoredSession: Decodable {
        var st: Double
        var dn: Double
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
