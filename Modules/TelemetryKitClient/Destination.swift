/// A place events are delivered to: a transmitter, its queue and its delivery rules.
///
/// Each destination has its own cache and dispatcher; a slow or failing destination
/// never holds up another.
public struct Destination: Sendable {
    /// A unique id, used in stats and by destination-scoped transformations.
    public var id: String
    public var transmitter: any EventTransmitting
    public var cache: any EventCaching
    public var policy: DeliveryPolicy
    /// Transformations for this destination only (their scope is taken as this destination).
    public var transformations: [any EventTransformation]

    public init(
        id: String,
        transmitter: any EventTransmitting,
        cache: any EventCaching = InMemoryEventCache(),
        policy: DeliveryPolicy = .default,
        transformations: [any EventTransformation] = []
    ) {
        self.id = id
        self.transmitter = transmitter
        self.cache = cache
        self.policy = policy
        self.transformations = transformations
    }
}
