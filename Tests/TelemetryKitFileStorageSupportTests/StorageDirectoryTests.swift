import Testing

@testable import TelemetryKitFileStorageSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct StorageDirectoryTests {
    @Test func xdgDataHomeWinsWhenAbsolute() throws {
        let url = try StorageDirectory.xdgDataDirectory(
            appID: "APP-1",
            environment: ["XDG_DATA_HOME": "/var/data"],
            home: "/home/user"
        )
        #expect(url.path == "/var/data/telemetrykit/APP-1")
    }

    @Test func relativeXDGDataHomeFallsBackToHome() throws {
        let url = try StorageDirectory.xdgDataDirectory(
            appID: "APP-1",
            environment: ["XDG_DATA_HOME": "relative/data"],
            home: "/home/user"
        )
        #expect(url.path == "/home/user/.local/share/telemetrykit/APP-1")
    }

    @Test func homeIsUsedWithoutXDGDataHome() throws {
        let url = try StorageDirectory.xdgDataDirectory(appID: "APP-2", environment: [:], home: "/root")
        #expect(url.path == "/root/.local/share/telemetrykit/APP-2")
    }

    @Test func noHomeAndNoXDGDataHomeIsAnError() {
        #expect(throws: FileStorageError.noDataDirectory(reason: "neither XDG_DATA_HOME nor HOME is an absolute path"))
        {
            try StorageDirectory.xdgDataDirectory(appID: "APP", environment: [:], home: nil)
        }
    }

    @Test func applicationSupportEndsWithTheAppID() throws {
        let url = try StorageDirectory.applicationSupport(appID: "APP-3")
        #expect(url.lastPathComponent == "APP-3")
        #if !canImport(Darwin)
        #expect(url.deletingLastPathComponent().lastPathComponent == "telemetrykit")
        #endif
    }

    @Test(arguments: ["", ".", "..", "a/b", "/", "nul\u{0}byte"])
    func invalidComponentsAreRejected(_ name: String) {
        #expect(throws: FileStorageError.invalidName(name)) {
            try StorageDirectory.validateComponent(name)
        }
        #expect(throws: FileStorageError.invalidName(name)) {
            try StorageDirectory.applicationSupport(appID: name)
        }
    }

    @Test(arguments: ["TelemetryKit", "com.example.app", "A1B2-C3D4", "with space", "..dots", "ümlaut"])
    func validComponentsAreAccepted(_ name: String) throws {
        try StorageDirectory.validateComponent(name)
    }
}
