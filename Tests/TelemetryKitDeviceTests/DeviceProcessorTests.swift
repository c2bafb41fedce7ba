import Foundation
import TelemetryKit
import TelemetryKitClient
import TelemetryKitDevice
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// 2024-01-15T12:00:00Z and 2024-07-15T12:00:00Z.
private let january = Date(timeIntervalSince1970: 1_705_320_000)
private let july = Date(timeIntervalSince1970: 1_721_044_800)

private let fixedInfo = DeviceInfo(
    platform: "Linux",
    operatingSystem: "Linux",
    systemVersion: "Linux 12",
    systemMajorVersion: "Linux 12",
    systemMajorMinorVersion: "Linux 12.0",
    modelName: "Standard PC",
    architecture: "x86_64",
    isSimulator: false,
    isDebug: true,
    isTestFlight: false,
    isAppStore: false,
    targetEnvironment: "native"
)

private func zone(_ identifier: String) throws -> TimeZone {
    try #require(TimeZone(identifier: identifier))
}

private func run(_ processor: DeviceProcessor, at date: Date) async throws -> Event {
    let pipeline = ProcessorPipeline(processors: [processor], finalizer: EventFinalizer(appID: "APP"))
    return try await pipeline.process(EventInput("Screen.shown", parameters: ["screen": "home"], timestamp: date))
}

struct DeviceProcessorTests {
    @Test func keysAreTheSpecNames() {
        #expect(
            DeviceProcessor.Keys.all == [
                "TelemetryDeck.Device.platform",
                "TelemetryDeck.Device.operatingSystem",
                "TelemetryDeck.Device.systemVersion",
                "TelemetryDeck.Device.systemMajorVersion",
                "TelemetryDeck.Device.systemMajorMinorVersion",
                "TelemetryDeck.Device.modelName",
                "TelemetryDeck.Device.architecture",
                "TelemetryDeck.Device.timeZone",
                "TelemetryDeck.RunContext.isSimulator",
                "TelemetryDeck.RunContext.isDebug",
                "TelemetryDeck.RunContext.isTestFlight",
                "TelemetryDeck.RunContext.isAppStore",
                "TelemetryDeck.RunContext.targetEnvironment",
            ]
        )
    }

    @Test(arguments: [
        (0, "UTC+0"),
        (7_200, "UTC+2"),
        (19_800, "UTC+5:30"),
        (-34_200, "UTC-9:30"),
        (20_700, "UTC+5:45"),
        (-18_000, "UTC-5"),
        (-1_800, "UTC-0:30"),
        (50_400, "UTC+14"),
        (-43_200, "UTC-12"),
        (3_630, "UTC+1"),
        (-59, "UTC+0"),
        (31_500, "UTC+8:45"),
    ])
    func timeZoneFormatting(secondsFromGMT: Int, expected: String) {
        #expect(DeviceProcessor.formattedTimeZone(secondsFromGMT: secondsFromGMT) == expected)
    }

    @Test func addsEveryKeyWithItsTypeAndKeepsEventParameters() async throws {
        let event = try await run(DeviceProcessor(timeZone: try zone("Asia/Kolkata"), info: fixedInfo), at: january)
        #expect(
            event.payload == [
                "screen": .string("home"),
                "TelemetryDeck.Device.platform": .string("Linux"),
                "TelemetryDeck.Device.operatingSystem": .string("Linux"),
                "TelemetryDeck.Device.systemVersion": .string("Linux 12"),
                "TelemetryDeck.Device.systemMajorVersion": .string("Linux 12"),
                "TelemetryDeck.Device.systemMajorMinorVersion": .string("Linux 12.0"),
                "TelemetryDeck.Device.modelName": .string("Standard PC"),
                "TelemetryDeck.Device.architecture": .string("x86_64"),
                "TelemetryDeck.Device.timeZone": .string("UTC+5:30"),
                "TelemetryDeck.RunContext.isSimulator": .bool(false),
                "TelemetryDeck.RunContext.isDebug": .bool(true),
                "TelemetryDeck.RunContext.isTestFlight": .bool(false),
                "TelemetryDeck.RunContext.isAppStore": .bool(false),
                "TelemetryDeck.RunContext.targetEnvironment": .string("native"),
            ]
        )
    }

    @Test(arguments: [
        ("UTC", "UTC+0", "UTC+0"),
        ("Europe/Berlin", "UTC+1", "UTC+2"),
        ("Asia/Kathmandu", "UTC+5:45", "UTC+5:45"),
        ("Pacific/Marquesas", "UTC-9:30", "UTC-9:30"),
        ("America/St_Johns", "UTC-3:30", "UTC-2:30"),
        ("Australia/Adelaide", "UTC+10:30", "UTC+9:30"),
    ])
    func timeZoneIsTheOffsetAtTheEventTimestamp(identifier: String, inJanuary: String, inJuly: String) async throws {
        let processor = DeviceProcessor(timeZone: try zone(identifier), info: fixedInfo)
        #expect(try await run(processor, at: january).payload[DeviceProcessor.Keys.timeZone] == .string(inJanuary))
        #expect(try await run(processor, at: july).payload[DeviceProcessor.Keys.timeZone] == .string(inJuly))
        // Back again: the cached period must not leak into another one.
        #expect(try await run(processor, at: january).payload[DeviceProcessor.Keys.timeZone] == .string(inJanuary))
    }

    @Test func offsetChangesExactlyAtTheDaylightSavingTransition() throws {
        // Europe/Berlin switched to summer time at 2024-03-31T01:00:00Z.
        let processor = DeviceProcessor(timeZone: try zone("Europe/Berlin"), info: fixedInfo)
        let transition = Date(timeIntervalSince1970: 1_711_846_800)
        let key = DeviceProcessor.Keys.timeZone
        #expect(processor.parameters(at: transition.addingTimeInterval(-1))[key] == .string("UTC+1"))
        #expect(processor.parameters(at: transition)[key] == .string("UTC+2"))
        #expect(processor.parameters(at: transition.addingTimeInterval(-3_600))[key] == .string("UTC+1"))
        #expect(processor.parameters(at: transition.addingTimeInterval(3_600))[key] == .string("UTC+2"))
    }

    @Test func eventsNowUseTheCurrentOffsetOfTheSystemZone() async throws {
        let now = Date()
        let event = try await run(DeviceProcessor(info: fixedInfo), at: now)
        let expected = DeviceProcessor.formattedTimeZone(secondsFromGMT: TimeZone.current.secondsFromGMT(for: now))
        #expect(event.payload[DeviceProcessor.Keys.timeZone] == .string(expected))
    }

    @Test func eventParametersWinOverDeviceFacts() async throws {
        let pipeline = ProcessorPipeline(
            processors: [DeviceProcessor(info: fixedInfo)],
            finalizer: EventFinalizer(appID: "APP")
        )
        let event = try await pipeline.process(EventInput("x", parameters: [DeviceProcessor.Keys.platform: "Custom"]))
        #expect(event.payload[DeviceProcessor.Keys.platform] == .string("Custom"))
    }
}

#if os(Linux)
/// The running Linux system: real values, compared with `uname(2)` and `/etc/os-release`.
struct RunningLinuxDeviceTests {
    private func unameMachine() -> String {
        var name = utsname()
        guard uname(&name) == 0 else { return "" }
        return withUnsafeBytes(of: name.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
    }

    @Test func valuesAreNonEmptyAndMatchUname() async throws {
        let machine = unameMachine()
        #expect(!machine.isEmpty)
        let info = DeviceInfo.current()
        #expect(info.platform == "Linux")
        #expect(info.operatingSystem == "Linux")
        #expect(info.architecture == machine)
        #expect(info.systemVersion.hasPrefix("Linux "))
        #expect(info.systemVersion.count > "Linux ".count)
        #expect(info.systemMajorVersion.hasPrefix("Linux "))
        #expect(info.systemMajorMinorVersion.hasPrefix(info.systemMajorVersion + "."))
        #expect(info.systemVersion.hasPrefix(info.systemMajorVersion))
        #expect(!info.modelName.isEmpty)
        #expect(info.isSimulator == false)
        #expect(info.isTestFlight == false)
        #expect(info.isAppStore == false)
        #expect(info.targetEnvironment == "native")
        #if DEBUG
        #expect(info.isDebug == true)
        #else
        #expect(info.isDebug == false)
        #endif
    }

    @Test func modelIsTheDMIProductNameOrTheMachine() throws {
        let productName = (try? String(contentsOfFile: "/sys/class/dmi/id/product_name", encoding: .utf8))?
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let model = DeviceInfo.current().modelName
        if let productName, !productName.isEmpty {
            #expect(model == productName || model == unameMachine())
        } else {
            #expect(model == unameMachine())
        }
    }

    @Test func versionMatchesOSReleaseVersionID() throws {
        let text = try? String(contentsOfFile: "/etc/os-release", encoding: .utf8)
        let versionLine = text?.split(separator: "\n").first { $0.hasPrefix("VERSION_ID=") }
        guard let versionLine else { return }  // no VERSION_ID: the kernel fallback is covered by fake roots
        let versionID = versionLine.dropFirst("VERSION_ID=".count).trimmingCharacters(
            in: CharacterSet(charactersIn: "\"'")
        )
        guard versionID.allSatisfy({ $0.isNumber || $0 == "." }) else { return }
        #expect(DeviceInfo.current().systemVersion == "Linux \(versionID)")
    }

    @Test func everyKeyIsPresentWithTheSpecType() async throws {
        let event = try await run(DeviceProcessor(), at: Date())
        let booleans: Set<String> = [
            DeviceProcessor.Keys.isSimulator, DeviceProcessor.Keys.isDebug, DeviceProcessor.Keys.isTestFlight,
            DeviceProcessor.Keys.isAppStore,
        ]
        for key in DeviceProcessor.Keys.all {
            switch event.payload[key] {
            case .bool?: #expect(booleans.contains(key), "\(key) should be a String")
            case .string(let value)?:
                #expect(!booleans.contains(key), "\(key) should be a Bool")
                #expect(!value.isEmpty, "\(key) is empty")
            default: Issue.record("\(key) is missing or has the wrong type: \(String(describing: event.payload[key]))")
            }
        }
        #expect(event.payload[DeviceProcessor.Keys.architecture] == .string(unameMachine()))
    }
}
#endif

/// `TelemetryDeck.RunContext.extensionIdentifier`: sent only from app extensions.
struct ExtensionIdentifierTests {
    @Test func readFromTheBundlesExtensionEntry() {
        let widget: [String: Any] = ["NSExtension": ["NSExtensionPointIdentifier": "com.apple.widgetkit-extension"]]
        #expect(DeviceInfo.extensionPointIdentifier(infoDictionary: widget) == "com.apple.widgetkit-extension")
        #expect(DeviceInfo.extensionPointIdentifier(infoDictionary: ["CFBundleName": "App"]) == nil)
        #expect(
            DeviceInfo.extensionPointIdentifier(infoDictionary: ["NSExtension": ["NSExtensionPointIdentifier": ""]])
                == nil
        )
        #expect(DeviceInfo.extensionPointIdentifier(infoDictionary: nil) == nil)
    }

    @Test func sentOnlyWhenPresent() {
        var info = DeviceInfo.linux()
        #expect(info.parameters["TelemetryDeck.RunContext.extensionIdentifier"] == nil)
        info.extensionIdentifier = "com.apple.share-services"
        #expect(info.parameters["TelemetryDeck.RunContext.extensionIdentifier"] == .string("com.apple.share-services"))
    }
}
