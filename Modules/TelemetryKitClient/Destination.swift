/// A place events are delivered to: a transmitter, its queue and its delivery rules.
///
/// Each destination has its own cache and dispatcher; a slow or failing destination
/// never holds up another.
public struct Destination: Sendable {
    /// A unique id, used in stats and by destination-scoped transformations.
    public var id: String
    public var transmitter: any EventTransmitting
    public var cache: any EventCaching {
        get { storedCache }
        set {
            storedCache = newValue
            callerExecutorCache = newValue as? any CallerExecutorAppending
        }
    }
    public var policy: DeliveryPolicy
    /// Transformations for this destination only (their scope is taken as this destination).
    public var transformations: [any EventTransformation]

    private var storedCache: any EventCaching
    /// ``cache`` again when it can be called on the caller's executor. Found by a cast for a
    /// cache given from outside; known without one for the default queue (see the package
    /// initialiser): a process's first cast of a value to a protocol searches every
    /// conformance record it has, about half a millisecond of a launch.
    package private(set) var callerExecutorCache: (any CallerExecutorAppending)?

    public init(
        id: String,
        transmitter: any EventTransmitting,
        cache: any EventCaching = InMemoryEventCache(),
        policy: DeliveryPolicy = .default,
        transformations: [any EventTransformation] = []
    ) {
        self.id = id
        self.transmitter = transmitter
        self.storedCache = cache
        self.callerExecutorCache = cache as? any CallerExecutorAppending
        self.policy = policy
        self.transformations = transformations
    }

    /// A destination whose cache is statically known to append on the caller's executor (the
    /// default SQLite queue): no cast at launch.
    package init(
        id: String,
        transmitter: any EventTransmitting,
        callerExecutorCache cache: some CallerExecutorAppending,
        policy: DeliveryPolicy
    ) {
        self.id = id
        self.transmitter = transmitter
        self.storedCache = cache
        self.callerExecutorCache = cache
        self.policy = policy
        self.transformations = []
    }
}
