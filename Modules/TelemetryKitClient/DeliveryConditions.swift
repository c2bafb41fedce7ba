/// What the device's network and power allow right now, as the destinations weigh it before
/// each send.
///
/// Why: a phone spends much of its day offline, on cellular, in Low Data Mode or in Low
/// Power Mode. An attempt that cannot reach the receiver is not a failure of the receiver,
/// so it must not grow the backoff (a backlog would then wait minutes after the network
/// returns); and a user who turned on Low Data Mode or Low Power Mode asked apps to do less
/// in the background. ``DeliveryPolicy`` says what each destination does under each
/// condition.
///
/// On Apple platforms `Telemetry.initialize` follows the system's network path and power
/// state; elsewhere the conditions stay ``unrestricted`` unless a source is followed (see
/// ``DeliveryConditionsSource``).
public struct DeliveryConditions: Sendable, Hashable {
    /// A path to the network exists. While false, nothing is sent and no attempt counts as a
    /// failure.
    public var isOnline: Bool
    /// The path costs the user money or data (cellular, a personal hotspot).
    public var isExpensive: Bool
    /// The user asked apps to save data (Low Data Mode).
    public var isConstrained: Bool
    /// The user asked apps to save power (Low Power Mode).
    public var isLowPowerModeEnabled: Bool

    public init(
        isOnline: Bool = true,
        isExpensive: Bool = false,
        isConstrained: Bool = false,
        isLowPowerModeEnabled: Bool = false
    ) {
        self.isOnline = isOnline
        self.isExpensive = isExpensive
        self.isConstrained = isConstrained
        self.isLowPowerModeEnabled = isLowPowerModeEnabled
    }

    /// Online on an unmetered path with no saving mode: what a server or a test has.
    public static let unrestricted = DeliveryConditions()
    /// No path to the network.
    public static let offline = DeliveryConditions(isOnline: false)
}

/// Reports the device's ``DeliveryConditions``: the current ones first, then every change.
///
/// `TelemetryKitDefaults` provides the system's (the network path monitor and the power
/// state) on Apple platforms, and `Telemetry.initialize` follows it. A client built by hand,
/// or a test, follows any source with ``TelemetryClient/follow(_:)``:
///
/// ```swift
/// struct ManualConditions: DeliveryConditionsSource {
///     let stream: AsyncStream<DeliveryConditions>
///     func conditions() -> AsyncStream<DeliveryConditions> { stream }
/// }
/// let (stream, continuation) = AsyncStream.makeStream(of: DeliveryConditions.self)
/// client.follow(ManualConditions(stream: stream))
/// continuation.yield(.offline)   // sending pauses
/// continuation.yield(.unrestricted)   // the queue is sent now
/// ```
///
/// ## Implementation requirements
/// - Yield the current conditions as soon as they are known, then each change.
/// - Stop observing the system when the stream's consumer goes away (`onTermination`): the
///   client stops consuming at shutdown.
public protocol DeliveryConditionsSource: Sendable {
    /// The conditions now and after every change.
    func conditions() -> AsyncStream<DeliveryConditions>
}
