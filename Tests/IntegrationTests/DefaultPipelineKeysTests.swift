import Foundation
import TelemetryKitDefaults
import TelemetryKitTesting
import Testing

/// The default pipeline on Linux: every key of the spec tables, with its type.
struct DefaultPipelineKeysTests {
    enum Kind: Sendable, CustomStringConvertible {
        case string, int, bool

        var description: String {
            switch self {
            case .string: return "String"
            case .int: return "Int"
            case .bool: return "Bool"
            }
        }

        func matches(_ value: PayloadValue) -> Bool {
            switch (self, value) {
            case (.string, .string), (.int, .int), (.bool, .bool): return true
            default: return false
            }
        }
    }

    /// The keys of spec/02's tables that the default processors add on Linux. The
    /// accessibility keys are Apple-only (the processor documents that it adds nothing on
    /// Linux); `previousSessionSeconds` appears from the second session on.
    static let expectedKeys: [(String, Kind)] = [
        ("TelemetryDeck.Retention.totalSessionsCount", .int),
        ("TelemetryDeck.Retention.distinctDaysUsed", .int),
        ("TelemetryDeck.Retention.distinctDaysUsedLastMonth", .int),
        ("TelemetryDeck.Retention.averageSessionSeconds", .int),
        ("TelemetryDeck.Acquisition.firstSessionDate", .string),
        ("TelemetryDeck.Device.platform", .string),
        ("TelemetryDeck.Device.operatingSystem", .string),
        ("TelemetryDeck.Device.systemVersion", .string),
        ("TelemetryDeck.Device.systemMajorVersion", .string),
        ("TelemetryDeck.Device.systemMajorMinorVersion", .string),
        ("TelemetryDeck.Device.modelName", .string),
        ("TelemetryDeck.Device.architecture", .string),
        ("TelemetryDeck.Device.timeZone", .string),
        ("TelemetryDeck.RunContext.isSimulator", .bool),
        ("TelemetryDeck.RunContext.isDebug", .bool),
        ("TelemetryDeck.RunContext.isTestFlight", .bool),
        ("TelemetryDeck.RunContext.isAppStore", .bool),
        ("TelemetryDeck.RunContext.targetEnvironment", .string),
        ("TelemetryDeck.AppInfo.version", .string),
        ("TelemetryDeck.AppInfo.buildNumber", .string),
        ("TelemetryDeck.AppInfo.versionAndBuildNumber", .string),
        ("TelemetryDeck.SDK.name", .string),
        ("TelemetryDeck.SDK.version", .string),
        ("TelemetryDeck.SDK.nameAndVersion", .string),
        ("TelemetryDeck.RunContext.locale", .string),
        ("TelemetryDeck.RunContext.language", .string),
        ("TelemetryDeck.UserPreference.language", .string),
        ("TelemetryDeck.Calendar.dayOfMonth", .int),
        ("TelemetryDeck.Calendar.dayOfWeek", .int),
        ("TelemetryDeck.Calendar.dayOfYear", .int),
        ("TelemetryDeck.Calendar.weekOfYear", .int),
        ("TelemetryDeck.Calendar.isWeekend", .bool),
        ("TelemetryDeck.Calendar.monthOfYear", .int),
        ("TelemetryDeck.Calendar.quarterOfYear", .int),
        ("TelemetryDeck.Calendar.hourOfDay", .int),
    ]

    @Test func everySpecKeyIsPresentWithItsType() async throws {
        let config = Telemetry.Config(appID: "APP", namespace: "ns", appVersion: "2.1.0", buildNumber: "42")
        let harness = await TestHarness.make(processors: Telemetry.defaultProcessors(for: config))
        harness.client.event("Screen.shown", parameters: ["screen": "home"])
        await harness.client.flush()
        let event = try #require(harness.spy.deliveredEvents.first { $0.type == "Screen.shown" })
        for (key, kind) in Self.expectedKeys {
            let value = try #require(event.payload[key], "missing \(key)")
            #expect(kind.matches(value), "\(key) should be \(kind), is \(value)")
        }
        #expect(event.payload["screen"] == .string("home"))
        #expect(event.payload["TelemetryDeck.Device.platform"] == .string("Linux"))
        // As in v3: `isNewInstall` only on the install's first event, absent from the others.
        let types = harness.spy.deliveredEvents.map(\.type)
        #expect(
            types == ["TelemetryDeck.Acquisition.newInstallDetected", "TelemetryDeck.Session.started", "Screen.shown"]
        )
        #expect(
            harness.spy.deliveredEvents.map { $0.payload["TelemetryDeck.Acquisition.isNewInstall"] } == [
                .bool(true), nil, nil,
            ]
        )
        // As in v3: no previous session's length before there is a previous session.
        #expect(
            harness.spy.deliveredEvents.allSatisfy {
                $0.payload["TelemetryDeck.Retention.previousSessionSeconds"] == nil
            }
        )
        #expect(event.payload["TelemetryDeck.AppInfo.versionAndBuildNumber"] == .string("2.1.0 (build 42)"))
        #expect(event.payload["TelemetryDeck.SDK.nameAndVersion"] == .string("TelemetryKit \(SDKInfo.version)"))
        #expect(event.sessionID != nil)
        #expect(event.clientUser.count == 64)
        #expect(harness.logger.warnings.isEmpty, "unexpected warnings: \(harness.logger.warnings)")
    }
}
