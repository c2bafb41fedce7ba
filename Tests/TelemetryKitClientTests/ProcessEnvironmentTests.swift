import TelemetryKitSupport
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#endif

/// `ProcessEnvironment` reads the live environment, one variable at a time (the preview filter
/// and, on Linux, the locale processor read theirs through it). A variable of this test's own
/// is set and unset, so that no other test sees a change.
struct ProcessEnvironmentTests {
    @Test func readsTheVariableAsItIsNow() {
        let name = "TELEMETRYKIT_TEST_" + UUID().uuidString.filter(\.isHexDigit)
        defer { unsetenv(name) }
        #expect(ProcessEnvironment.value(of: name) == nil)
        setenv(name, "de_DE.UTF-8", 1)
        #expect(ProcessEnvironment.value(of: name) == "de_DE.UTF-8")
        setenv(name, "Grüße, 🌍", 1)
        #expect(ProcessEnvironment.value(of: name) == "Grüße, 🌍")
        setenv(name, "", 1)
        #expect(ProcessEnvironment.value(of: name) == "")
        unsetenv(name)
        #expect(ProcessEnvironment.value(of: name) == nil)
    }

    @Test func agreesWithFoundationsCopyOfTheEnvironment() {
        let environment = ProcessInfo.processInfo.environment
        for name in ["PATH", "HOME", "XCODE_RUNNING_FOR_PREVIEWS", "LANG"] {
            #expect(ProcessEnvironment.value(of: name) == environment[name], "\(name)")
        }
    }
}
