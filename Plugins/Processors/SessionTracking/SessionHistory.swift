import TelemetryKit

/// The persisted session history: recent sessions in detail, older ones only counted.
///
/// Stored as JSON under ``SessionTrackingProcessor/Keys/historyStorageKey`` (written and read
/// in `SessionTrackingJSON.swift`). Times are
/// seconds since 1970 and calendar days are day numbers since 1970-01-01 in the time zone
/// the processor computes days in.
struct SessionHistory: Sendable, Equatable {
    /// One session: when it started and how long it lasted (start → last activity).
    struct Session: Sendable, Equatable {
        var start: Double
        var seconds: Double
    }

    static let currentVersion = 1
    /// The longest session length kept (about 31 700 years), so conversions to Int never trap.
    static let maximumSeconds: Double = 1e12

    var version: Int
    /// The calendar day of the very first session.
    var firstSessionDay: Int
    /// Sessions that were pruned from `sessions` but still count.
    var prunedSessionCount: Int
    /// Distinct days that were pruned from `days` but still count.
    var prunedDayCount: Int
    /// Sessions within the retention window, oldest first; the last one is the current session.
    var sessions: [Session]
    /// Distinct days used within the retention window, ascending.
    var days: [Int]

    /// An empty history for a first launch on `firstDay`.
    init(firstSessionDay: Int) {
        self.version = SessionHistory.currentVersion
        self.firstSessionDay = firstSessionDay
        self.prunedSessionCount = 0
        self.prunedDayCount = 0
        self.sessions = []
        self.days = []
    }

    /// This history with out-of-order or impossible values repaired, or nil when it cannot be trusted.
    func validated() -> SessionHistory? {
        // Bounds keep later arithmetic (counts, day differences, Int conversions) from overflowing.
        let countRange = 0...(1 << 40)
        let dayRange = -CalendarDays.maximumDayMagnitude...CalendarDays.maximumDayMagnitude
        guard countRange.contains(prunedSessionCount), countRange.contains(prunedDayCount),
            dayRange.contains(firstSessionDay), days.allSatisfy({ dayRange.contains($0) })
        else { return nil }
        var repaired = self
        repaired.sessions = sessions.compactMap { session in
            guard session.start.isFinite, session.seconds.isFinite else { return nil }
            return Session(start: session.start, seconds: min(max(0, session.seconds), Self.maximumSeconds))
        }
        repaired.sessions.sort { $0.start < $1.start }
        repaired.days = Array(Set(days)).sorted()
        return repaired
    }

    /// Sessions counted so far, pruned ones included.
    var totalSessionsCount: Int { prunedSessionCount + sessions.count }

    /// Appends a new current session that starts at `start` on `day`.
    mutating func beginSession(at start: Double, day: Int) {
        sessions.append(Session(start: start, seconds: 0))
        insertDay(day)
    }

    /// Records `day` as used; returns whether it was new.
    @discardableResult
    mutating func insertDay(_ day: Int) -> Bool {
        if let last = days.last, last >= day {
            if last == day || days.contains(day) { return false }
            let index = days.firstIndex { $0 > day } ?? days.endIndex
            days.insert(day, at: index)
            return true
        }
        days.append(day)
        return true
    }

    /// Sets the current session's length from its start to `lastActivity`.
    mutating func updateCurrentSession(lastActivity: Double) {
        guard let last = sessions.indices.last else { return }
        sessions[last].seconds = min(max(0, lastActivity - sessions[last].start), Self.maximumSeconds)
    }

    /// Moves sessions and days older than `retentionDays` from the details into the counts.
    ///
    /// The current session and the one before it are always kept: they carry
    /// `previousSessionSeconds` even after a long pause.
    mutating func prune(now: Double, today: Int, retentionDays: Int) {
        let cutoff = now - Double(retentionDays) * 86_400
        let protectedFrom = max(0, sessions.count - 2)
        var kept = [Session]()
        kept.reserveCapacity(sessions.count)
        for (index, session) in sessions.enumerated() {
            if index < protectedFrom && session.start < cutoff {
                prunedSessionCount += 1
            } else {
                kept.append(session)
            }
        }
        sessions = kept
        let oldDays = days.prefix { today - $0 >= retentionDays }.count
        if oldDays > 0 {
            prunedDayCount += oldDays
            days.removeFirst(oldDays)
        }
    }

    /// The retention parameters for events of the current session. `isNewInstall` is not among
    /// them: as in TelemetryDeck v3 it is sent (as `true`) on the first event of a fresh
    /// install only, and left out everywhere else.
    func retentionParameters(today: Int) -> [String: PayloadValue] {
        typealias Keys = SessionTrackingProcessor.Keys
        let total = totalSessionsCount
        let lastMonth = days.reduce(into: 0) { count, day in
            if today - day < 30 { count += 1 }
        }
        var parameters: [String: PayloadValue] = [
            Keys.totalSessionsCount: .int(Int64(total)),
            Keys.distinctDaysUsed: .int(Int64(prunedDayCount + days.count)),
            Keys.distinctDaysUsedLastMonth: .int(Int64(lastMonth)),
            Keys.firstSessionDate: .string(CalendarDays.dateString(forDay: firstSessionDay)),
        ]
        let finished = sessions.dropLast()
        if total >= 2, let previous = finished.last {
            let sum = finished.reduce(0) { $0 + $1.seconds }
            parameters[Keys.averageSessionSeconds] = .int(Int64((sum / Double(finished.count)).rounded()))
            parameters[Keys.previousSessionSeconds] = .int(Int64(previous.seconds.rounded()))
        } else {
            parameters[Keys.averageSessionSeconds] = .int(-1)
        }
        return parameters
    }
}
