#if !Tools
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The entry point when the package is built without the Tools trait: it did not do what was
/// asked, so it says how to get a working build on standard error and exits 1.
@main
enum ToolsTraitMissing {
    static func main() {
        let message =
            "telemetrykit was built without the Tools trait, so it has no commands. "
            + "Build and run it with the trait: swift run --traits Tools telemetrykit demo\n"
        _ = message.utf8CString.withUnsafeBufferPointer { text in
            write(2, text.baseAddress, text.count - 1)
        }
        exit(1)
    }
}
#endif
