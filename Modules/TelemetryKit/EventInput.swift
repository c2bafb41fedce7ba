#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// An event as the app sent it, before processors enrich it.
///
/// Processors may change any field and pass the changed copy to `next`.
public struct EventInput: Sendable, Hashable {
    /// The event name, e.g. `Screen.shown`.
    public var name: String
    /// The parameters given with the event. They win over context metadata on collisions.
    public var parameters: EventParameters
    /// An optional numeric value sent as the event's `floatValue`.
    public var floatValue: Double?
    /// A user identifier for this event only; it beats every other identifier source.
    public var customUserID: String?
    /// When the event was created. Kept with sub-second precision as `receivedAt`.
    public var timestamp: Date
    /// `true` for SDK-internal events, which may use the reserved `TelemetryDeck.` namespace.
    public var skipsReservedPrefixValidation: Bool

    /// Creates an event input.
    @inlinable
    public init(
        _ name: String,
        parameters: EventParameters = [:],
        floatValue: Double? = nil,
        customUserID: String? = nil,
        timestamp: Date = Date(),
        skipsReservedPrefixValidation: Bool = false
    ) {
        self.name = name
        self.parameters = parameters
        self.floatValue = floatValue
        self.customUserID = customUserID
        self.timestamp = timestamp
        self.skipsReservedPrefixValidation = skipsReservedPrefixValidation
    }

    /// Creates an event input (labelled form).
    @inlinable
    public init(
        name: String,
        parameters: EventParameters = [:],
        floatValue: Double? = nil,
        customUserID: String? = nil,
        timestamp: Date = Date(),
        skipsReservedPrefixValidation: Bool = false
    ) {
        self.init(
            name,
            parameters: parameters,
            floatValue: floatValue,
            customUserID: customUserID,
            timestamp: timestamp,
            skipsReservedPrefixValidation: skipsReservedPrefixValidation
        )
    }
}
