/// The parameters of an event: string keys with typed values.
///
/// Write them as a dictionary literal of mixed types; each value is converted to its
/// `PayloadValue` once, at the call site:
///
/// ```swift
/// Telemetry.event("Checkout.completed", parameters: ["items": 3, "total": 19.99, "coupon": "SPRING"])
/// ```
public struct EventParameters: Sendable, Hashable {
    /// The parameters as payload values.
    public var values: [String: PayloadValue]

    /// Creates parameters from payload values.
    @inlinable
    public init(_ values: [String: PayloadValue] = [:]) {
        self.values = values
    }

    /// Creates parameters from any dictionary of parameter values, e.g. `[String: String]`.
    @inlinable
    public init<Value: ParameterValue>(_ values: [String: Value]) {
        var converted = [String: PayloadValue](minimumCapacity: values.count)
        for (key, value) in values { converted[key] = value.payloadValue }
        self.values = converted
    }

    /// The value for `key`, or nil.
    @inlinable
    public subscript(key: String) -> PayloadValue? {
        get { values[key] }
        set { values[key] = newValue }
    }

    @inlinable public var count: Int { values.count }
    @inlinable public var isEmpty: Bool { values.isEmpty }
    @inlinable public var keys: Dictionary<String, PayloadValue>.Keys { values.keys }

    /// Sets `value` for `key`, replacing any existing value.
    @inlinable
    public mutating func set(_ key: String, _ value: some ParameterValue) {
        values[key] = value.payloadValue
    }

    /// Removes the value for `key` and returns it.
    @inlinable
    @discardableResult
    public mutating func removeValue(forKey key: String) -> PayloadValue? {
        values.removeValue(forKey: key)
    }

    /// Returns these parameters with `other` laid over them (`other` wins on collisions).
    @inlinable
    public func merging(_ other: EventParameters) -> EventParameters {
        if other.values.isEmpty { return self }
        if values.isEmpty { return other }
        return EventParameters(values.merging(other.values) { _, new in new })
    }
}

extension EventParameters: ExpressibleByDictionaryLiteral {
    @inlinable
    public init(dictionaryLiteral elements: (String, any ParameterValue)...) {
        var converted = [String: PayloadValue](minimumCapacity: elements.count)
        for (key, value) in elements { converted[key] = value.payloadValue }
        self.values = converted
    }
}

extension EventParameters: Sequence {
    public typealias Element = (key: String, value: PayloadValue)
    @inlinable
    public func makeIterator() -> Dictionary<String, PayloadValue>.Iterator { values.makeIterator() }
}

extension EventParameters: Codable {
    public init(from decoder: any Decoder) throws {
        self.values = try [String: PayloadValue](from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try values.encode(to: encoder)
    }
}
