#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// Variables of the process environment, read one at a time.
///
/// Why not `ProcessInfo.processInfo.environment`: it copies the whole environment into a new
/// dictionary on every call, slowest the first time in a launch, for processors that
/// each need one or two variables while `Telemetry.initialize` builds them.
package enum ProcessEnvironment {
    /// The value of the variable `name`, or nil when it is not set.
    package static func value(of name: String) -> String? {
        guard let value = getenv(name) else { return nil }
        return String(cString: value)
    }
}
