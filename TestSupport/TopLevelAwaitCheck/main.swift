// Top-level code: Swift resolves `await Telemetry.event(...)` to the synchronous overload here
// (as with TelemetryDeck v3, whose facade has the same pair); `Telemetry.send(_:)` is the call
// that always waits, which this program checks.
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
    await Telemetry.send(EventInput("TopLevel.awaited", parameters: ["n": n], floatValue: 1, customUserID: "user"))
    counts.append(await cache.count())
}
print("counts-match=\(counts == Array(1...50))")
await Telemetry.terminate()
