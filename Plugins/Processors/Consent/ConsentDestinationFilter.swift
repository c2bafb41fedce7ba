public import TelemetryKit

/// Drops, before transmission, the events a destination may not receive under the current
/// consent: overall consent must be granted, and every purpose the destination requires and
/// every purpose the event was tagged with must be granted.
///
/// Make one per destination with ``ConsentProcessor/destinationFilter(requiring:)`` and pass
/// it in `Destination(transformations:)` (its scope becomes that destination). The filter
/// also removes the purposes tag (`ConsentProcessor.Keys.purposes`) from the payload, so put
/// one on every destination when events are tagged with purposes.
///
/// Consent is checked when a batch is sent, not when the event was cached: events cached
/// while a purpose was granted are not sent after it was revoked.
public struct ConsentDestinationFilter: EventTransformation {
    public let id: String
    public let order: Int
    public let scope: TransformationScope
    /// Purposes this destination needs for every event.
    public let requiredPurposes: Set<ConsentPurpose>
    private let processor: ConsentProcessor

    init(
        processor: ConsentProcessor,
        requiredPurposes: Set<ConsentPurpose>,
        id: String,
        order: Int,
        scope: TransformationScope
    ) {
        self.processor = processor
        self.requiredPurposes = requiredPurposes
        self.id = id
        self.order = order
        self.scope = scope
    }

    public func transform(_ event: consuming Event, destination: String?) async -> Event? {
        var needed = requiredPurposes
        if let tag = event.payloadValue(forKey: ConsentProcessor.Keys.purposes) {
            event.setPayloadValue(nil, forKey: ConsentProcessor.Keys.purposes)
            needed.formUnion(ConsentProcessor.purposes(fromTag: tag.stringValue))
        }
        return processor.allows(needed) ? event : nil
    }
}
