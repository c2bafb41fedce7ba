// Top-level code: `await Telemetry.event(...)` must pick the awaiting overload here too.
import TelemetryKitDefaults
import TelemetryKitTesting

let spy = SpyEventTransmitter()
let cache = InMemoryEventCache()
try await Telemetry.initialize(
    configuration: Telemetry.Config(appID: "TOP-LEVEL", namespace: "check"),
    processors: [],
    cache: cache,
    transmitter: spy,
    logger: SilentLogger(),
    storage: InMemoryProcessorStorage()
)
var counts: [Int] = []
for n in 1...50 {
    await Telemetry.event("TopLevel.awaited", parameters: ["n": n], floatValue: 1, customUserID: "user")
    counts.append(await cache.count())
}
print("counts-match=\(counts == Array(1...50))")
await Telemetry.terminate()
