public import TelemetryKit

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SessionTrackingProcessor {
    /// The keys TelemetryDeck's Swift SDK (v3, or v2 before it) kept its session history under,
    /// in the `ProcessorStorage` it was given.
    public enum TelemetryDeckKeys {
        /// String: set by v3 on its first start; its presence means the data is v3's.
        public static let installID = "installID"
        /// String, `yyyy-MM-dd`.
        public static let firstSessionDate = "firstSessionDate"
        /// Data: a JSON array of `{"st": date, "dn": seconds}`. v3 wrote `st` as seconds since
        /// 2001-01-01 (`JSONEncoder`'s default), v2 as seconds since 1970; as v3's own migrator
        /// does, data without an `installID` is read as v2's.
        public static let recentSessions = "recentSessions"
        /// Int.
        public static let deletedSessionsCount = "deletedSessionsCount"
        /// v3: a JSON array of `yyyy-MM-dd` (Data, or a String holding the JSON); v2: a
        /// property-list string array.
        public static let distinctDaysUsed = "distinctDaysUsed"
    }

    /// The session history TelemetryDeck's SDK left in `storage`, or nil when it holds none of
    /// its keys (a fresh install, or an app that never used it).
    ///
    /// Why here: an app that passed its own storage to v3's `initialize(storage:)` passes the
    /// same storage to TelemetryKit, and ``start(storage:logger:emitter:)`` adopts what this
    /// finds there, once, so its users are no new installs. The facade's importer reads v3's
    /// default storage with it too. Damaged values are skipped with a warning; everything
    /// readable is still used.
    public static func telemetryDeckHistory(
        in storage: any ProcessorStorage,
        logger: any Logging
    ) async -> ImportedHistory? {
        typealias Keys = TelemetryDeckKeys
        let installID = await storage.string(forKey: Keys.installID)
        let firstSessionDate = await storage.string(forKey: Keys.firstSessionDate)
        let deletedSessionsCount = await storage.integer(forKey: Keys.deletedSessionsCount)
        var sessionsData = await storage.data(forKey: Keys.recentSessions)
        if sessionsData == nil, let text = await storage.string(forKey: Keys.recentSessions) {
            sessionsData = Data(text.utf8)
        }
        let days = await readDistinctDays(from: storage, logger: logger)
        let found =
            installID != nil || firstSessionDate != nil || sessionsData != nil || days != nil
            || deletedSessionsCount != 0
        guard found else { return nil }
        let sessions = sessionsData.map { decodeSessions($0, writtenByVersion3: installID != nil, logger: logger) }
        return ImportedHistory(
            sessions: sessions ?? [],
            deletedSessionsCount: deletedSessionsCount,
            firstSessionDate: firstSessionDate,
            distinctDays: days ?? []
        )
    }

    /// `recentSessions`: every element with a numeric `st` and `dn`; others are skipped.
    private static func decodeSessions(
        _ data: Data,
        writtenByVersion3: Bool,
        logger: any Logging
    ) -> [ImportedHistory.Session] {
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
        let sessions = entries.compactMap { entry -> ImportedHistory.Session? in
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
        if let data = await storage.data(forKey: TelemetryDeckKeys.distinctDaysUsed) {
            json = data
        } else if let text = await storage.string(forKey: TelemetryDeckKeys.distinctDaysUsed) {
            json = Data(text.utf8)
        } else {
            return await storage.stringArray(forKey: TelemetryDeckKeys.distinctDaysUsed)
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
private struct Lenient<T: Decodable>: Decodable {
    let value: T?

    init(from decoder: any Decoder) throws {
        value = try? T(from: decoder)
    }
}
