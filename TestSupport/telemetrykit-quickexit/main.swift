// telemetrykit-quickexit: a command-line program that uses the `Telemetry` facade and ends a
// moment later, as a CLI does. The exit tests run it several times on one data directory and
// check that the next run (or the queue's file) sees what the previous one did.
//
//   telemetrykit-quickexit DIRECTORY COMMAND [ARGUMENT]
//
//   launch            initialize, await one event ("Launch.ran"), print the opt-out state
//   set-user ID       initialize, await Telemetry.setUserIdentifier(ID), await one event
//   opt-out           initialize, await Telemetry.setAnalyticsDisabled(true)
//   deny-consent      initialize with a ConsentProcessor first, await its deny()
//   consent-state     initialize with a ConsentProcessor first, print its state
//   burst N           initialize, N fire-and-forget events ("Burst.event", parameter n), then
//                     return from main: nothing awaits them but the SDK's exit handler
//   flush URL         initialize with the collector at URL, flush, print the result, terminate
//
// Every command but `burst` and `flush` ends with `_exit(0)` as soon as its last call returns:
// no exit handler runs, so what the next run sees was on disk when the call returned.
// Events go to http://127.0.0.1:9 (nothing listens; no command but `flush` sends).

import TelemetryKitConsent
import TelemetryKitDefaults

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    print("usage: telemetrykit-quickexit DIRECTORY COMMAND [ARGUMENT]")
    exit(64)
}
let directory = URL(fileURLWithPath: arguments[1], isDirectory: true)
let command = arguments[2]
let argument = arguments.count > 3 ? arguments[3] : nil

let apiBaseURL = command == "flush" ? argument.flatMap(URL.init(string:)) : URL(string: "http://127.0.0.1:9")
let configuration = Telemetry.Config(
    appID: "QUICK-EXIT",
    namespace: "quick-exit",
    apiBaseURL: apiBaseURL!,
    dataDirectory: directory,
    allowInsecureHTTP: true
)
let consent = ConsentProcessor()
let usesConsent = command.hasSuffix("consent") || command == "consent-state"
try await Telemetry.initialize(
    configuration: configuration,
    processors: (usesConsent ? [consent] : []) + Telemetry.defaultProcessors(for: configuration)
)

/// Ends the process now, without the exit handlers (`exit` would run the SDK's).
func endAtOnce() -> Never {
    _exit(0)
}

switch command {
case "launch":
    await Telemetry.send(EventInput("Launch.ran"))
    print("analytics-disabled=\(await Telemetry.isAnalyticsDisabled)")
    fflush(nil)  // every stream: `_exit` does not
    endAtOnce()
case "set-user":
    await Telemetry.setUserIdentifier(argument)
    await Telemetry.send(EventInput("User.set"))
    endAtOnce()
case "opt-out":
    await Telemetry.setAnalyticsDisabled(true)
    endAtOnce()
case "deny-consent":
    await consent.deny()
    endAtOnce()
case "consent-state":
    print("consent=\(consent.consentState.rawValue)")
    fflush(nil)  // every stream: `_exit` does not
    endAtOnce()
case "burst":
    // Then returns from main: the SDK's exit handler has to commit what its intake holds.
    for n in 0..<(Int(argument ?? "") ?? 0) {
        Telemetry.event("Burst.event", parameters: ["n": n])
    }
case "flush":
    print("flush=\(await Telemetry.flush())")
    await Telemetry.terminate()
default:
    print("unknown command \(command)")
    exit(64)
}
