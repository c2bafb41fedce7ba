// libFuzzer entry point for FuzzCheck.eventJSON. Built with `--sanitize=fuzzer` (see .ci/fuzz),
// libFuzzer supplies `main`; in a plain build this file is the whole program and does nothing.
import TelemetryKitFuzzChecks

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzCheck.eventJSON.runOrTrap(start, count)
    return 0
}
