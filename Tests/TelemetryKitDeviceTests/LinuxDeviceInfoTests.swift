import Foundation
import TelemetryKitDevice
import Testing

/// `DeviceInfo.linux` against fake system files and a fake kernel: exact values.
struct LinuxDeviceInfoTests {
    let kernel = KernelIdentity(release: "6.1.0-18-amd64", machine: "aarch64")

    @Test func readsVersionFromOSReleaseAndModelFromDMI() throws {
        let root = try FakeRoot(text: [
            FakeFiles.osRelease: """
            PRETTY_NAME="Ubuntu 22.04.4 LTS"
            NAME="Ubuntu"
            VERSION_ID="22.04"
            ID=ubuntu
            """,
            FakeFiles.productName: "ThinkPad X1 Carbon Gen 11\n",
        ])
        defer { root.remove() }
        let info = DeviceInfo.linux(fileSystemRoot: root.path, kernel: kernel, isDebug: false)
        #expect(
            info
                == DeviceInfo(
                    platform: "Linux",
                    operatingSystem: "Linux",
                    systemVersion: "Linux 22.04",
                    systemMajorVersion: "Linux 22",
                    systemMajorMinorVersion: "Linux 22.04",
                    modelName: "ThinkPad X1 Carbon Gen 11",
                    architecture: "aarch64",
                    isSimulator: false,
                    isDebug: false,
                    isTestFlight: false,
                    isAppStore: false,
                    targetEnvironment: "native"
                )
        )
    }

    @Test func singleComponentVersionGetsMinorZero() throws {
        let root = try FakeRoot(text: [FakeFiles.osRelease: "NAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\n"])
        defer { root.remove() }
        let info = DeviceInfo.linux(fileSystemRoot: root.path, kernel: kernel)
        #expect(info.systemVersion == "Linux 12")
        #expect(info.systemMajorVersion == "Linux 12")
        #expect(info.systemMajorMinorVersion == "Linux 12.0")
    }

    @Test func singleQuotedAndUnquotedValuesAreRead() throws {
        let quoted = try FakeRoot(text: [FakeFiles.osRelease: "# Alpine\nNAME='Alpine Linux'\nVERSION_ID='3.19.1'\n"])
        defer { quoted.remove() }
        let info = DeviceInfo.linux(fileSystemRoot: quoted.path, kernel: kernel)
        #expect(info.systemVersion == "Linux 3.19.1")
        #expect(info.systemMajorVersion == "Linux 3")
        #expect(info.systemMajorMinorVersion == "Linux 3.19")

        let bare = try FakeRoot(text: [FakeFiles.osRelease: "  VERSION_ID=39  \n"])
        defer { bare.remove() }
        #expect(DeviceInfo.linux(fileSystemRoot: bare.path, kernel: kernel).systemVersion == "Linux 39")
    }

    @Test func usrLibOSReleaseIsTheFallbackForEtc() throws {
        let root = try FakeRoot(text: [FakeFiles.usrLibOSRelease: "VERSION_ID=\"15.5\"\n"])
        defer { root.remove() }
        let info = DeviceInfo.linux(fileSystemRoot: root.path, kernel: kernel)
        #expect(info.systemVersion == "Linux 15.5")
        #expect(info.systemMajorMinorVersion == "Linux 15.5")
    }

    @Test func missingFilesFallBackToKernelReleaseAndMachine() throws {
        let root = try FakeRoot()
        defer { root.remove() }
        let info = DeviceInfo.linux(fileSystemRoot: root.path, kernel: kernel)
        #expect(info.systemVersion == "Linux 6.1.0")
        #expect(info.systemMajorVersion == "Linux 6")
        #expect(info.systemMajorMinorVersion == "Linux 6.1")
        #expect(info.modelName == "aarch64")
        #expect(info.architecture == "aarch64")
    }

    @Test func rootThatDoesNotExistFallsBackWithoutCrashing() {
        let info = DeviceInfo.linux(fileSystemRoot: "/nonexistent-\(UUID().uuidString)", kernel: kernel)
        #expect(info.systemVersion == "Linux 6.1.0")
        #expect(info.modelName == "aarch64")
    }

    @Test(arguments: [
        "VERSION_ID=rolling\n",  // no leading digit
        "VERSION_ID=\"12; rm -rf /\"\n",  // characters os-release does not allow
        "VERSION_ID=\"\"\n",  // empty
        "NAME=Arch\nBUILD_ID=rolling\n",  // no VERSION_ID at all
        "this is not an os-release file\n===\n",
    ])
    func implausibleVersionIDFallsBackToKernel(osRelease: String) throws {
        let root = try FakeRoot(text: [FakeFiles.osRelease: osRelease])
        defer { root.remove() }
        let info = DeviceInfo.linux(fileSystemRoot: root.path, kernel: kernel)
        #expect(info.systemVersion == "Linux 6.1.0")
        #expect(info.systemMajorMinorVersion == "Linux 6.1")
    }

    @Test func binaryGarbageFilesFallBack() throws {
        let garbage = Data([0xFF, 0xFE, 0x00, 0x56, 0x45, 0x52, 0xC3, 0x28, 0x0A])
        let root = try FakeRoot(files: [FakeFiles.osRelease: garbage, FakeFiles.productName: garbage])
        defer { root.remove() }
        let info = DeviceInfo.linux(fileSystemRoot: root.path, kernel: kernel)
        #expect(info.systemVersion == "Linux 6.1.0")
        #expect(info.modelName == "aarch64")
    }

    @Test func directoriesInPlaceOfFilesFallBack() throws {
        let root = try FakeRoot(directories: [FakeFiles.osRelease, FakeFiles.productName])
        defer { root.remove() }
        let info = DeviceInfo.linux(fileSystemRoot: root.path, kernel: kernel)
        #expect(info.systemVersion == "Linux 6.1.0")
        #expect(info.modelName == "aarch64")
    }

    @Test(arguments: ["To be filled by O.E.M.\n", "Default string", "   \n", "System Product Name\n", "bad\u{7}name"])
    func placeholderOrUnprintableProductNameFallsBackToMachine(productName: String) throws {
        let root = try FakeRoot(text: [FakeFiles.productName: productName])
        defer { root.remove() }
        #expect(DeviceInfo.linux(fileSystemRoot: root.path, kernel: kernel).modelName == "aarch64")
    }

    @Test func emptyKernelAndNoFilesGiveUnknown() throws {
        let root = try FakeRoot()
        defer { root.remove() }
        let info = DeviceInfo.linux(fileSystemRoot: root.path, kernel: KernelIdentity(release: "", machine: ""))
        #expect(info.systemVersion == "Linux unknown")
        #expect(info.systemMajorVersion == "Linux unknown")
        #expect(info.systemMajorMinorVersion == "Linux unknown")
        #expect(info.architecture == "unknown")
        #expect(info.modelName == "unknown")
    }

    @Test func versionSuffixesAreCutAtTheNumericPrefix() throws {
        let root = try FakeRoot(text: [FakeFiles.osRelease: "VERSION_ID=10-beta.2\n"])
        defer { root.remove() }
        let info = DeviceInfo.linux(fileSystemRoot: root.path, kernel: kernel)
        #expect(info.systemVersion == "Linux 10")
        #expect(info.systemMajorMinorVersion == "Linux 10.0")
    }

    @Test func isDebugIsPassedThrough() throws {
        let root = try FakeRoot()
        defer { root.remove() }
        #expect(DeviceInfo.linux(fileSystemRoot: root.path, kernel: kernel, isDebug: true).isDebug == true)
        #expect(DeviceInfo.linux(fileSystemRoot: root.path, kernel: kernel, isDebug: false).isDebug == false)
    }
}
