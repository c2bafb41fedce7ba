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

    /// Creates parameters from a dictionary of strings (v3's `[String: String]` parameters).
    @inlinable
    public init(_ dictionary: [String: String]) {
        var converted = [String: PayloadValue](minimumCapacity: dictionary.count)
        for (key, value) in dictionary { converted[key] = .string(value) }
        self.values = converted
    }

    /// Creates parameters from any dictionary of parameter values, e.g. `[String: Int]`.
    @inlinable
    @_disfavoredOverload
    public init<Value: ParameterValue>(_ values: [String: Value]) {
        var converted = [String: PayloadValue](minimumCapacity: values.count)
        for (key, value) in values { converted[key] = value.payloadValue }
        self.values = converted
    }

    /// The value for `key`, or nil; setting nil removes it.
    ///
    /// ```swift
    /// var parameters: EventParameters = ["plan": "pro"]
    /// parameters["seats"] = 3
    /// ```
    @inlinable
    public subscript(key: String) -> (any ParameterValue)? {
        get { values[key] }
        set { values[key] = newValue?.payloadValue }
    }

    /// The value for a key spelled as a `String` enum case, e.g. `DefaultParams.Error.id`.
    @inlinable
    public subscript<Key: RawRepresentable>(key: Key) -> (any ParameterValue)? where Key.RawValue == String {
        get { values[key.rawValue] }
        set { values[key.rawValue] = newValue?.payloadValue }
    }

    /// The payload value for `key`, or nil (the typed read, for comparisons).
    @inlinable
    public func payloadValue(forKey key: String) -> PayloadValue? {
        values[key]
    }

    /// The parameters as the payload dictionary an event carries.
    @inlinable
    public var payloadDictionary: [String: PayloadValue] { values }

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

    /// Lays `other` over these parameters (`other` wins on collisions).
    @inlinable
    public mutating func merge(_ other: EventParameters) {
        if other.values.isEmpty { return }
        if values.isEmpty {
            values = other.values
        } else {
            values.merge(other.values) { _, new in new }
        }
    }

    /// Lays string parameters over these (`other` wins on collisions).
    @inlinable
    public mutating func merge(_ other: [String: String]) {
        for (key, value) in other { values[key] = .string(value) }
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
