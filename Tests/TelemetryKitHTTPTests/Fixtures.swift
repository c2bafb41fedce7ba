import TelemetryKit
import TelemetryKitSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Events for the HTTP tests.
enum Fixtures {
    /// 2024-06-15T14:00:00.123Z, millisecond precision like every finalized event.
    static let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
    static let milliseconds: Int64 = 1_718_460_000_123

    static func event(
        number: Int = 1,
        type: String = "Screen.shown",
        payload: [String: PayloadValue] = ["screen": "home", "count": 3, "ratio": 0.25, "isPro": true],
        sessionID: String? = "0F7E2A4C-9D1B-4C3E-8F5A-6B2D1E0C9A87",
        floatValue: Double? = 1.5,
        isTestMode: Bool = false
    ) -> Event {
        Event(
            id: uuid(number),
            appID: "APP-ID",
            type: type,
            clientUser: SHA256Hex.digest("user-\(number)"),
            sessionID: sessionID,
            // Whole milliseconds computed the way the decoder computes them, so events compare equal.
            receivedAt: Date(timeIntervalSince1970: Double(milliseconds + Int64(number)) / 1000),
            payload: payload,
            floatValue: floatValue,
            isTestMode: isTestMode
        )
    }

    /// A deterministic UUID whose last 12 hex digits are `number`.
    static func uuid(_ number: Int) -> UUID {
        let digits = String(number, radix: 16, uppercase: true)
        let padded = String(repeating: "0", count: max(0, 12 - digits.count)) + digits
        return UUID(uuidString: "00000000-0000-4000-8000-\(padded)") ?? UUID()
    }

    /// A payload shaped like the default processors' (about 25 parameters).
    static let defaultProcessorsPayload: [String: PayloadValue] = [
        "TelemetryDeck.AppInfo.buildNumber": "412",
        "TelemetryDeck.AppInfo.version": "2.4.1",
        "TelemetryDeck.AppInfo.versionAndBuildNumber": "2.4.1 (build 412)",
        "TelemetryDeck.Calendar.dayOfMonth": 15,
        "TelemetryDeck.Calendar.dayOfWeek": 6,
        "TelemetryDeck.Calendar.hourOfDay": 14,
        "TelemetryDeck.Calendar.isWeekend": false,
        "TelemetryDeck.Calendar.monthOfYear": 6,
        "TelemetryDeck.Calendar.quarterOfYear": 2,
        "TelemetryDeck.Device.architecture": "x86_64",
        "TelemetryDeck.Device.modelName": "KVM",
        "TelemetryDeck.Device.operatingSystem": "Linux",
        "TelemetryDeck.Device.platform": "Linux",
        "TelemetryDeck.Device.systemMajorVersion": "6",
        "TelemetryDeck.Device.systemVersion": "6.1.0",
        "TelemetryDeck.Device.timeZone": "UTC+2",
        "TelemetryDeck.RunContext.isDebug": false,
        "TelemetryDeck.RunContext.locale": "en_US",
        "TelemetryDeck.RunContext.language": "en",
        "TelemetryDeck.SDK.name": "TelemetryKit",
        "TelemetryDeck.SDK.version": "1.0.0",
        "TelemetryDeck.Session.started": "2024-06-15T13:58:12.000Z",
        "TelemetryDeck.UserPreference.region": "US",
        "screen": "home",
        "items": 3,
    ]
}
