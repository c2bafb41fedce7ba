/// The parameters of an event: string keys with typed values.
///
/// Write them as a dictionary literal of mixed types; each value is converted to its
/// `PayloadValue` once, at the call site:
///
/// ```swift
/// Telemetry.event("Checkout.completed", parameters: ["items": 3, "total": 19.99, "coupon": "SPRING"])
/// ```
///
/// A value read back is the Swift value it was given as, as in TelemetryDeck v3, so a
/// processor can branch on it with a plain cast:
///
/// ```swift
/// if input.parameters["plan"] as? String == "pro", let seats = input.parameters["seats"] as? Int { … }
/// ```
///
/// Strings, integers (`Int`), doubles and booleans come back from their payload value at no
/// cost; a value of any other type (a `Date`, a `UUID`, an `Int32`, your own
/// `ParameterValue`) is also kept as given, beside its payload value, for such reads.
/// Equality, hashing and coding look at the payload values only.
public struct EventParameters: Sendable {
    /// The parameters as payload values.
    public var values: [String: PayloadValue]

    /// The values given as a type other than the payload's own (`String`, `Int`, `Double`,
    /// `Bool`), so that a read returns them as given. An entry counts only while its payload
    /// value is still the one in `values` (`values` can be changed directly).
    @usableFromInline
    var originals: [String: any ParameterValue]

    /// Creates parameters from payload values.
    @inlinable
    public init(_ values: [String: PayloadValue] = [:]) {
        self.values = values
        self.originals = [:]
    }

    /// Creates parameters from a dictionary of strings (v3's `[String: String]` parameters).
    @inlinable
    public init(_ dictionary: [String: String]) {
        var converted = [String: PayloadValue](minimumCapacity: dictionary.count)
        for (key, value) in dictionary { converted[key] = .string(value) }
        self.values = converted
        self.originals = [:]
    }

    /// Creates parameters from any dictionary of parameter values, e.g. `[String: Int]`.
    @inlinable
    @_disfavoredOverload
    public init<Value: ParameterValue>(_ values: [String: Value]) {
        var converted = [String: PayloadValue](minimumCapacity: values.count)
        self.originals = [:]
        for (key, value) in values { converted[key] = value.payloadValue }
        self.values = converted
        if !Self.isPayloadNative(Value.self) {
            for (key, value) in values { originals[key] = value }
        }
    }

    /// The value for `key` as it was given (`as? String`, `as? Int`, `as? Date` work), or nil;
    /// setting nil removes it.
    ///
    /// ```swift
    /// var parameters: EventParameters = ["plan": "pro"]
    /// parameters["seats"] = 3
    /// let seats = parameters["seats"] as? Int   // 3
    /// ```
    @inlinable
    public subscript(key: String) -> (any ParameterValue)? {
        get { value(forKey: key) }
        set { setValue(newValue, forKey: key) }
    }

    /// The value for a key spelled as a `String` enum case, e.g. `DefaultParams.Error.id`.
    @inlinable
    public subscript<Key: RawRepresentable>(key: Key) -> (any ParameterValue)? where Key.RawValue == String {
        get { value(forKey: key.rawValue) }
        set { setValue(newValue, forKey: key.rawValue) }
    }

    @inlinable
    func value(forKey key: String) -> (any ParameterValue)? {
        guard let payload = values[key] else { return nil }
        if !originals.isEmpty, let original = originals[key], original.payloadValue == payload {
            return original
        }
        return payload.swiftValue
    }

    @inlinable
    mutating func setValue(_ value: (any ParameterValue)?, forKey key: String) {
        guard let value else {
            values.removeValue(forKey: key)
            if !originals.isEmpty { originals.removeValue(forKey: key) }
            return
        }
        values[key] = value.payloadValue
        if !Self.isPayloadNative(type(of: value)) {
            originals[key] = value
        } else if !originals.isEmpty {
            originals.removeValue(forKey: key)
        }
    }

    /// Whether values of `type` read back exactly from their payload value (no original kept).
    /// A comparison of type identities: a few nanoseconds, unlike a dynamic cast.
    @inlinable
    static func isPayloadNative(_ type: any ParameterValue.Type) -> Bool {
        let id = ObjectIdentifier(type)
        return id == ObjectIdentifier(String.self) || id == ObjectIdentifier(Int.self)
            || id == ObjectIdentifier(Double.self) || id == ObjectIdentifier(Bool.self)
            || id == ObjectIdentifier(PayloadValue.self)
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
        setValue(value, forKey: key)
    }

    /// Removes the value for `key` and returns it.
    @inlinable
    @discardableResult
    public mutating func removeValue(forKey key: String) -> PayloadValue? {
        if !originals.isEmpty { originals.removeValue(forKey: key) }
        return values.removeValue(forKey: key)
    }

    /// Lays `other` over these parameters (`other` wins on collisions).
    @inlinable
    public mutating func merge(_ other: EventParameters) {
        if other.values.isEmpty { return }
        if values.isEmpty {
            values = other.values
            originals = other.originals
        } else {
            values.merge(other.values) { _, new in new }
            if !originals.isEmpty {
                for key in other.values.keys { originals.removeValue(forKey: key) }
            }
            if !other.originals.isEmpty {
                originals.merge(other.originals) { _, new in new }
            }
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
        var merged = self
        merged.merge(other)
        return merged
    }
}

extension EventParameters: Hashable {
    /// Parameters are equal when their payloads are: what an event would carry.
    @inlinable
    public static func == (lhs: EventParameters, rhs: EventParameters) -> Bool {
        lhs.values == rhs.values
    }

    @inlinable
    public func hash(into hasher: inout Hasher) {
        hasher.combine(values)
    }
}

extension EventParameters: ExpressibleByDictionaryLiteral {
    @inlinable
    public init(dictionaryLiteral elements: (String, any ParameterValue)...) {
        var converted = [String: PayloadValue](minimumCapacity: elements.count)
        var originals = [String: any ParameterValue]()
        for (key, value) in elements {
            converted[key] = value.payloadValue
            if !Self.isPayloadNative(type(of: value)) {
                originals[key] = value
            } else if !originals.isEmpty {
                originals.removeValue(forKey: key)
            }
        }
        self.values = converted
        self.originals = originals
    }
}

/// Iterating yields each value as it was given, as a read by key does (iterate ``values`` for
/// the payload values).
extension EventParameters: Sequence {
    public typealias Element = (key: String, value: any ParameterValue)

    public struct Iterator: IteratorProtocol {
        @usableFromInline var base: Dictionary<String, PayloadValue>.Iterator
        @usableFromInline let parameters: EventParameters

        @inlinable
        init(_ parameters: EventParameters) {
            self.parameters = parameters
            self.base = parameters.values.makeIterator()
        }

        @inlinable
        public mutating func next() -> Element? {
            guard let (key, payload) = base.next() else { return nil }
            if !parameters.originals.isEmpty, let original = parameters.originals[key],
                original.payloadValue == payload
            {
                return (key, original)
            }
            return (key, payload.swiftValue)
        }
    }

    @inlinable
    public func makeIterator() -> Iterator { Iterator(self) }
}

extension EventParameters: Codable {
    public init(from decoder: any Decoder) throws {
        self.values = try [String: PayloadValue](from: decoder)
        self.originals = [:]
    }

    public func encode(to encoder: any Encoder) throws {
        try values.encode(to: encoder)
    }
}
