public import TelemetryKit

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension SessionTrackingProcessor {
    /// Session history recorded by another SDK, in the terms TelemetryDeck's SDKs stored it.
    ///
    /// Hand it to ``adoptImportedHistory(_:into:now:logger:)`` so that an app moving to
    /// TelemetryKit keeps counting its users' sessions and days instead of starting over.
    public struct ImportedHistory: Sendable, Hashable {
        /// One finished session.
        public struct Session: Sendable, Hashable {
            /// When the session started.
            public var start: Date
            /// How long it lasted, in seconds.
            public var seconds: Double

            public init(start: Date, seconds: Double) {
                self.start = start
                self.seconds = seconds
            }
        }

        /// The sessions still kept in detail, in any order.
        public var sessions: [Session]
        /// Sessions that were dropped from `sessions` but still count towards the total.
        public var deletedSessionsCount: Int
        /// The calendar date of the very first session, `yyyy-MM-dd`; nil when unknown.
        public var firstSessionDate: String?
        /// The calendar dates with use, `yyyy-MM-dd`; empty when unknown (the sessions'
        /// start dates are used then).
        public var distinctDays: [String]

        public init(
            sessions: [Session] = [],
            deletedSessionsCount: Int = 0,
            firstSessionDate: String? = nil,
            distinctDays: [String] = []
        ) {
            self.sessions = sessions
            self.deletedSessionsCount = deletedSessionsCount
            self.firstSessionDate = firstSessionDate
            self.distinctDays = distinctDays
        }
    }

    /// What ``adoptImportedHistory(_:into:now:logger:)`` did.
    public enum ImportOutcome: Sendable, Hashable {
        /// The history was saved; the next `start` continues from it (no new install).
        case adopted(totalSessionsCount: Int, distinctDaysUsed: Int)
        /// The storage already holds a history of this processor, which stays.
        case keptExisting
        /// The history is out of range (a negative count, a date beyond year 27 000) and was
        /// not saved; a warning was logged.
        case rejected
    }

    /// Saves `history` as this processor's history in `storage`, unless it already has one.
    ///
    /// Call it before the client starts, on the storage the client will use: the next
    /// `start` then finds a history and treats the launch as a returning user's (no
    /// `TelemetryDeck.Acquisition.newInstallDetected`, no `isNewInstall`), and the
    /// retention parameters count on from the imported sessions and days. An empty history
    /// still marks the install as known; pass one when another SDK's data shows the app was
    /// installed before.
    ///
    /// ```swift
    /// let imported = SessionTrackingProcessor.ImportedHistory(
    ///     sessions: [.init(start: lastLaunch, seconds: 95)],
    ///     deletedSessionsCount: 12,
    ///     firstSessionDate: "2024-03-01",
    ///     distinctDays: ["2024-03-01", "2024-06-14"]
    /// )
    /// await SessionTrackingProcessor.adoptImportedHistory(imported, into: storage, now: .now, logger: logger)
    /// ```
    ///
    /// Dates that are not `yyyy-MM-dd` are skipped with a warning. Days derived from the
    /// sessions, and the first-session date when nothing names it, are UTC calendar days,
    /// as TelemetryDeck's SDK v3 stored them; `now` gives the first-session date when there
    /// is nothing else. A history this processor saved itself is never replaced.
    ///
    /// - Parameters:
    ///   - history: The imported history.
    ///   - storage: The storage the client's processors start with.
    ///   - now: The current date (the client's clock).
    ///   - logger: Receives a warning for each thing that was skipped.
    @discardableResult
    public static func adoptImportedHistory(
        _ history: ImportedHistory,
        into storage: any ProcessorStorage,
        now: Date,
        logger: any Logging
    ) async -> ImportOutcome {
        if await storage.data(forKey: Keys.historyStorageKey) != nil {
            return .keptExisting
        }
        let sessions = history.sessions
            .filter { $0.start.timeIntervalSince1970.isFinite && $0.seconds.isFinite }
            .map { SessionHistory.Session(start: $0.start.timeIntervalSince1970, seconds: $0.seconds) }
        var days = history.distinctDays.compactMap(Self.utcDay(fromDateString:))
        if days.count < history.distinctDays.count {
            logger.log(
                .warning,
                "SessionTrackingProcessor skipped \(history.distinctDays.count - days.count) imported day(s) "
                    + "that are not yyyy-MM-dd dates"
            )
        }
        if sessions.count < history.sessions.count {
            logger.log(
                .warning,
                "SessionTrackingProcessor skipped \(history.sessions.count - sessions.count) imported session(s) "
                    + "with an impossible start or length"
            )
        }
        if days.isEmpty {
            days = sessions.map { Self.utcDay(of: $0.start) }
        }
        var firstDayCandidates = days + sessions.map { Self.utcDay(of: $0.start) }
        if let named = history.firstSessionDate {
            if let day = Self.utcDay(fromDateString: named) {
                firstDayCandidates.append(day)
            } else {
                logger.log(.warning, "SessionTrackingProcessor skipped the imported first session date '\(named)'")
            }
        }

        var adopted = SessionHistory(
            firstSessionDay: firstDayCandidates.min() ?? Self.utcDay(of: now.timeIntervalSince1970)
        )
        adopted.prunedSessionCount = history.deletedSessionsCount
        adopted.sessions = sessions
        adopted.days = days
        guard let valid = adopted.validated() else {
            logger.log(
                .warning,
                "SessionTrackingProcessor did not adopt the imported session history: its counts or dates "
                    + "are out of range (deleted sessions: \(history.deletedSessionsCount))"
            )
            return .rejected
        }
        await storage.set(valid.jsonData(), forKey: Keys.historyStorageKey)
        return .adopted(
            totalSessionsCount: valid.totalSessionsCount,
            distinctDaysUsed: valid.prunedDayCount + valid.days.count
        )
    }

    /// The day number (days since 1970-01-01) of a `yyyy-MM-dd` date, or nil.
    private static func utcDay(fromDateString string: String) -> Int? {
        guard string.utf8.count == 10, let date = ISO8601.date(from: string + "T00:00:00Z") else { return nil }
        let day = Int((date.timeIntervalSince1970 / 86_400).rounded(.down))
        // The parser accepts days 1–31 in any month; "2024-02-30" must not become March 1.
        return CalendarDays.dateString(forDay: day) == string ? day : nil
    }

    /// The UTC day number of a time in seconds since 1970.
    private static func utcDay(of seconds: Double) -> Int {
        CalendarDays(fixedOffset: 0).day(of: Date(timeIntervalSince1970: seconds))
    }
}
