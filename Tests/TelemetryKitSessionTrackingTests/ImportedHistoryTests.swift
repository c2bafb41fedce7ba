import TelemetryKit
import TelemetryKitSessionTracking
import TelemetryKitTesting
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

@Suite("SessionTrackingProcessor: adopting an imported history")
struct ImportedHistoryTests {
    /// Two sessions on the two days before the install's clock (2024-01-01), five older ones
    /// deleted, first used on 2023-06-01.
    private func twoRecentSessions() throws -> SessionTrackingProcessor.ImportedHistory {
        SessionTrackingProcessor.ImportedHistory(
            sessions: [
                .init(start: try utc("2023-12-31T09:00:00Z"), seconds: 60),
                .init(start: try utc("2023-12-30T10:00:00Z"), seconds: 120),
            ],
            deletedSessionsCount: 5,
            firstSessionDate: "2023-06-01",
            distinctDays: ["2023-06-01", "2023-12-30", "2023-12-31"]
        )
    }

    @Test func aReturningUserCountsOnFromTheImportedHistory() async throws {
        let install = SimulatedInstall()
        let outcome = await SessionTrackingProcessor.adoptImportedHistory(
            try twoRecentSessions(),
            into: install.storage,
            now: install.clock.now,
            logger: install.logger
        )
        #expect(outcome == .adopted(totalSessionsCount: 7, distinctDaysUsed: 3))

        let launch = await install.launch()
        #expect(launch.emitter.sentNames == [Keys.sessionStartedEvent])  // no newInstallDetected
        let event = try await launch.event()
        #expect(event.bool(Keys.isNewInstall) == nil)
        #expect(event.int(Keys.totalSessionsCount) == 8)
        #expect(event.int(Keys.previousSessionSeconds) == 60)
        #expect(event.int(Keys.averageSessionSeconds) == 90)
        // 2023-06-01 (pruned after 90 days but still counted), 12-30, 12-31 and today.
        #expect(event.int(Keys.distinctDaysUsed) == 4)
        #expect(event.int(Keys.distinctDaysUsedLastMonth) == 3)
        #expect(event.string(Keys.firstSessionDate) == "2023-06-01")
        #expect(install.logger.warnings.isEmpty)
    }

    @Test func theStoredFormatHoldsTheImportedSessionsInOrder() async throws {
        let install = SimulatedInstall()
        await SessionTrackingProcessor.adoptImportedHistory(
            try twoRecentSessions(),
            into: install.storage,
            now: install.clock.now,
            logger: install.logger
        )
        let stored = try await install.storedHistory()
        #expect(stored.sessions.map(\.start) == [1_703_930_400, 1_704_013_200])
        #expect(stored.sessions.map(\.seconds) == [120, 60])
        #expect(stored.prunedSessionCount == 5)
        #expect(stored.prunedDayCount == 0)
        // Day numbers since 1970-01-01: 2023-06-01, 2023-12-30, 2023-12-31.
        #expect(stored.days == [19_509, 19_721, 19_722])
        #expect(stored.firstSessionDay == 19_509)
    }

    @Test func aHistoryOfItsOwnIsNeverReplaced() async throws {
        let install = SimulatedInstall()
        try await install.runSession(seconds: 30)
        let before = await install.storage.data(forKey: Keys.historyStorageKey)

        let outcome = await SessionTrackingProcessor.adoptImportedHistory(
            try twoRecentSessions(),
            into: install.storage,
            now: install.clock.now,
            logger: install.logger
        )

        #expect(outcome == .keptExisting)
        #expect(await install.storage.data(forKey: Keys.historyStorageKey) == before)
    }

    @Test func anEmptyHistoryStillMarksTheInstallAsKnown() async throws {
        let install = SimulatedInstall()
        let outcome = await SessionTrackingProcessor.adoptImportedHistory(
            .init(),
            into: install.storage,
            now: install.clock.now,
            logger: install.logger
        )
        #expect(outcome == .adopted(totalSessionsCount: 0, distinctDaysUsed: 0))

        let launch = await install.launch()
        #expect(launch.emitter.sentNames == [Keys.sessionStartedEvent])
        let event = try await launch.event()
        #expect(event.bool(Keys.isNewInstall) == nil)
        #expect(event.int(Keys.totalSessionsCount) == 1)
        #expect(event.string(Keys.firstSessionDate) == "2024-01-01")
    }

    @Test func daysComeFromTheSessionsWhenNoneAreNamed() async throws {
        let install = SimulatedInstall()
        let history = SessionTrackingProcessor.ImportedHistory(
            sessions: [
                .init(start: try utc("2023-12-30T10:00:00Z"), seconds: 120),
                .init(start: try utc("2023-12-30T18:00:00Z"), seconds: 30),
                .init(start: try utc("2023-12-31T09:00:00Z"), seconds: 60),
            ]
        )
        let outcome = await SessionTrackingProcessor.adoptImportedHistory(
            history,
            into: install.storage,
            now: install.clock.now,
            logger: install.logger
        )
        #expect(outcome == .adopted(totalSessionsCount: 3, distinctDaysUsed: 2))
        let stored = try await install.storedHistory()
        #expect(stored.days == [19_721, 19_722])
        #expect(stored.firstSessionDay == 19_721)
    }

    @Test func datesThatAreNotCalendarDatesAreSkippedWithAWarning() async throws {
        let install = SimulatedInstall()
        let history = SessionTrackingProcessor.ImportedHistory(
            firstSessionDate: "June 1st",
            distinctDays: ["2023-12-31", "31.12.2023", "2024-02-30"]
        )
        let outcome = await SessionTrackingProcessor.adoptImportedHistory(
            history,
            into: install.storage,
            now: install.clock.now,
            logger: install.logger
        )
        #expect(outcome == .adopted(totalSessionsCount: 0, distinctDaysUsed: 1))
        #expect(try await install.storedHistory().firstSessionDay == 19_722)
        #expect(
            install.logger.warnings == [
                "SessionTrackingProcessor skipped 2 imported day(s) that are not yyyy-MM-dd dates",
                "SessionTrackingProcessor skipped the imported first session date 'June 1st'",
            ]
        )
    }

    @Test func anOutOfRangeHistoryIsRejectedAndNothingIsSaved() async throws {
        let install = SimulatedInstall()
        let outcome = await SessionTrackingProcessor.adoptImportedHistory(
            .init(deletedSessionsCount: -1),
            into: install.storage,
            now: install.clock.now,
            logger: install.logger
        )
        #expect(outcome == .rejected)
        #expect(await install.storage.data(forKey: Keys.historyStorageKey) == nil)
        #expect(install.logger.warnings.count == 1)
    }
}
