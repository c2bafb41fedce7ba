// libFuzzer entry point for FuzzCheck.ingestRequest. Built with `--sanitize=fuzzer` (see .ci/fuzz),
// libFuzzer supplies `main`; in a plain build this file is the whole program and does nothing.
import TelemetryKitFuzzChecks

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    FuzzCheck.ingestRequest.runOrTrap(start, count)
    return 0
}
