import TelemetryKit
import TelemetryKitTesting
import TelemetryKitTransformations

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A finalized event with a fixed date, for transformation tests.
func makeEvent(
    _ name: String = "purchase",
    payload: [String: PayloadValue] = [:],
    sessionID: String? = "S1"
) -> Event {
    Event(
        appID: "APP",
        type: name,
        clientUser: "user",
        sessionID: sessionID,
        receivedAt: Date(timeIntervalSince1970: 1_704_067_200),
        payload: payload
    )
}

/// Runs the transformations of `destination`'s scope the way the client does: ordered,
/// each one's synchronous path first, stopping at a drop.
func run(_ transformations: [any EventTransformation], on event: Event, destination: String? = nil) async -> Event? {
    await transformations.ordered(for: destination).run(on: event, destination: destination)
}

/// Makes the transformations of `configuration` with test doubles.
func makeTransformations(
    _ configuration: TransformationConfiguration,
    storage: InMemoryProcessorStorage = InMemoryProcessorStorage(),
    logger: RecordingLogger = RecordingLogger(),
    clock: ManualClock = ManualClock()
) -> [any EventTransformation] {
    configuration.transformations(storage: storage, logger: logger, clock: clock)
}

extension Data {
    /// UTF-8 data of a JSON literal written in a test.
    init(json: String) {
        self = Data(json.utf8)
    }
}
