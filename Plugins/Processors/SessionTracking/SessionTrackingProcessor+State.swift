import TelemetryKit
import TelemetryKitSupport
#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

// The state the processor keeps under its lock, the records it stores and announces, and how
// it reads back what it or another process stored.
extension SessionTrackingProcessor {
    /// The current session as stored for other processes (``Keys/activeSessionStorageKey``).
    struct ActiveSessionRecord: Sendable, Equatable {
        var id: UUID
        /// Seconds since 1970, as in the history.
        var start: Double
        var lastActivity: Double
        /// The process that started the session, and its executable's path.
        var process: Int32
        var executable: String
    }

    /// How `start` began: a session opened, another process's joined, or none yet (a launch
    /// in the background).
    enum StartOutcome {
        case opened, joined, waitingForForeground
    }

    /// A session a lifecycle signal opened, to announce.
    struct NewSession {
        let emitter: any EventSending
        let date: Date
        /// The first session of a fresh install, which `newInstallDetected` precedes.
        var announcesInstall = false
    }

    /// A launch in the background, until the app first comes to the foreground.
    struct PendingSession {
        /// The id the session gets when it opens.
        var id: UUID
        /// Nothing was stored: the session announces the install.
        let isFreshInstall: Bool
        /// No readable history was stored: the first session's day is the day it opens.
        let historyIsNew: Bool
    }

    /// What the processor got in `start`.
    /// A class, not a struct: every event reads the clock from it under the lock, and a copy
    /// of a struct of four existentials retained and released each of them.
    final class Environment: Sendable {
        let storage: any ProcessorStorage
        let logger: any Logging
        let emitter: any EventSending
        let clock: any TelemetryClock

        init(storage: any ProcessorStorage, logger: any Logging, emitter: any EventSending, clock: any TelemetryClock) {
            self.storage = storage
            self.logger = logger
            self.emitter = emitter
            self.clock = clock
        }
    }

    /// The mutable state, always accessed under the lock.
    struct State {
        var sessionID: UUID
        /// Nil until `start`; events before it get only the session id.
        var environment: Environment?
        var history = SessionHistory(firstSessionDay: 0)
        /// The retention parameters of the current session, computed when it (or the day) changes.
        var retention: [String: PayloadValue] = [:]
        /// The parameters for the first event of a fresh install (`isNewInstall` true), until used.
        var firstEventRetention: [String: PayloadValue]?
        var nextDayStart = Date.distantFuture
        var lastActivity = Date.distantPast
        var lastSavedActivity = Date.distantPast
        var backgroundedAt: Date?
        var observation: AppLifecycleObservation?
        /// The other process's session this process joined, until it starts one of its own.
        var joined: ActiveSessionRecord?
        /// Set while a launch in the background waits for the foreground: no session is open.
        var pending: PendingSession?

        init(sessionID: UUID) {
            self.sessionID = sessionID
        }

        mutating func noteActivity(_ now: Date) {
            if now > lastActivity {
                lastActivity = now
            }
        }

        /// Ends the current session at its last activity and starts a new one at `now`.
        mutating func beginNextSession(at now: Date, calendar: CalendarDays) {
            if let joined {
                // The owner measured the joined session; this process's activity extends it.
                history.updateCurrentSession(lastActivity: max(joined.lastActivity, lastActivity.timeIntervalSince1970))
                self.joined = nil
            } else {
                history.updateCurrentSession(lastActivity: lastActivity.timeIntervalSince1970)
            }
            sessionID = UUID()
            openSession(at: now, calendar: calendar)
        }

        /// Adds a session with the current id to the history, starting at `now`.
        mutating func openSession(at now: Date, calendar: CalendarDays) {
            let today = calendar.day(of: now)
            history.beginSession(at: now.timeIntervalSince1970, day: today)
            history.prune(
                now: now.timeIntervalSince1970,
                today: today,
                retentionDays: SessionTrackingProcessor.historyRetentionDays
            )
            lastActivity = now
            firstEventRetention = nil
            refreshRetention(today: today, now: now, calendar: calendar)
        }

        /// Starts a launch in the background: no session, events with the previous session's
        /// id (else the pending one) and the stored history's retention values.
        mutating func waitForForeground(
            _ session: PendingSession,
            previousSessionID: UUID?,
            at now: Date,
            calendar: CalendarDays
        ) {
            pending = session
            sessionID = previousSessionID ?? session.id
            firstEventRetention = nil
            refreshPendingRetention(today: calendar.day(of: now), now: now, calendar: calendar)
        }

        /// The retention values while waiting: the stored history's, none without one.
        mutating func refreshPendingRetention(today: Int, now: Date, calendar: CalendarDays) {
            retention = history.totalSessionsCount == 0 ? [:] : history.retentionParameters(today: today)
            nextDayStart = calendar.start(ofDayAfter: today, near: now)
        }

        /// Opens the session a launch in the background waited for, as a launch in the
        /// foreground at `now` would have.
        mutating func openPendingSession(_ session: PendingSession, at now: Date, calendar: CalendarDays) {
            pending = nil
            backgroundedAt = nil
            sessionID = session.id
            if session.historyIsNew {
                history = SessionHistory(firstSessionDay: calendar.day(of: now))
            }
            openSession(at: now, calendar: calendar)
            if session.isFreshInstall {
                firstEventRetention = State.markedAsNewInstall(retention)
            }
            lastSavedActivity = now
        }

        /// Continues another process's session `record` (see "Several processes"): its id, and
        /// the retention values of the history that process wrote.
        mutating func join(_ record: ActiveSessionRecord, at now: Date, calendar: CalendarDays) {
            joined = record
            sessionID = record.id
            let today = calendar.day(of: now)
            history.insertDay(today)
            lastActivity = now
            firstEventRetention = nil
            refreshRetention(today: today, now: now, calendar: calendar)
        }

        /// Records a new calendar day of use within the running session.
        mutating func rollDay(at now: Date, calendar: CalendarDays) {
            let today = calendar.day(of: now)
            history.insertDay(today)
            history.prune(
                now: now.timeIntervalSince1970,
                today: today,
                retentionDays: SessionTrackingProcessor.historyRetentionDays
            )
            refreshRetention(today: today, now: now, calendar: calendar)
            if firstEventRetention != nil {
                firstEventRetention = State.markedAsNewInstall(retention)
            }
            // Save the new day with the next event.
            lastSavedActivity = .distantPast
        }

        mutating func refreshRetention(today: Int, now: Date, calendar: CalendarDays) {
            retention = history.retentionParameters(today: today)
            nextDayStart = calendar.start(ofDayAfter: today, near: now)
        }

        static func markedAsNewInstall(_ parameters: [String: PayloadValue]) -> [String: PayloadValue] {
            var marked = parameters
            marked[Keys.isNewInstall] = .bool(true)
            return marked
        }
    }

    /// The session this process joins at `start`: another live process's session (`record`),
    /// active within `sessionTimeout`, that `history` knows as its current one; nil to start one.
    func joinableSession(
        _ record: ActiveSessionRecord?,
        history: SessionHistory?,
        now: Date
    ) -> ActiveSessionRecord? {
        guard let history, let record else { return nil }
        let idle = now.timeIntervalSince1970 - record.lastActivity
        guard record.process != processIdentifier, record.executable != executable, idle >= 0, idle < sessionTimeout,
            history.sessions.last?.start == record.start, Self.processIsAlive(record.process)
        else { return nil }
        return record
    }

    /// Whether a process with this id exists (EPERM: it does, but belongs to another user).
    private static func processIsAlive(_ pid: Int32) -> Bool {
        guard pid > 0 else { return false }
        return kill(pid, 0) == 0 || errno == EPERM
    }

    static func decodeHistory(_ data: Data, logger: any Logging) -> SessionHistory? {
        let decoded: SessionHistory
        do {
            decoded = try SessionHistory(jsonData: data)
        } catch {
            logger.log(
                .warning,
                "SessionTrackingProcessor found an unreadable session history (\(data.count) bytes); starting fresh: \(error)"
            )
            return nil
        }
        guard let valid = decoded.validated() else {
            logger.log(.warning, "SessionTrackingProcessor found an inconsistent session history; starting fresh")
            return nil
        }
        return valid
    }
}
