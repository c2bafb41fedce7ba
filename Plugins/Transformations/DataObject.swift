/// The `configuration` object of a transformation: transformer-specific settings.
///
/// ```swift
/// let enableEnrichment: Bool = settings.configuration.get(key: "enable_enrichment") ?? true
/// ```
public struct DataObject: Sendable, Hashable, ExpressibleByDictionaryLiteral {
    /// The members.
    public var values: [String: JSONValue]

    /// An object with `values`.
    public init(_ values: [String: JSONValue] = [:]) {
        self.values = values
    }

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var values = [String: JSONValue](minimumCapacity: elements.count)
        for (key, value) in elements { values[key] = value }
        self.values = values
    }

    /// The raw member for `key`.
    public subscript(key: String) -> JSONValue? {
        get { values[key] }
        set { values[key] = newValue }
    }

    /// The member for `key` as a `T`, or nil when it is missing or of another type.
    public func get<T: JSONRepresentable>(key: String) -> T? {
        values[key].flatMap(T.init(json:))
    }

    /// Whether the object has no members.
    public var isEmpty: Bool { values.isEmpty }
}

/// A Swift value readable from a ``JSONValue`` (used by ``DataObject/get(key:)``).
public protocol JSONRepresentable {
    /// The value, or nil when `json` is of another type.
    init?(json: JSONValue)
}

extension String: JSONRepresentable {
    public init?(json: JSONValue) {
        guard case .string(let value) = json else { return nil }
        self = value
    }
}

extension Bool: JSONRepresentable {
    public init?(json: JSONValue) {
        guard case .bool(let value) = json else { return nil }
        self = value
    }
}

extension Int: JSONRepresentable {
    public init?(json: JSONValue) {
        switch json {
        case .int(let value):
            guard let exact = Int(exactly: value) else { return nil }
            self = exact
        case .double(let value):
            guard let exact = Int(exactly: value) else { return nil }
            self = exact
        default: return nil
        }
    }
}

extension Double: JSONRepresentable {
    public init?(json: JSONValue) {
        guard let value = json.doubleValue else { return nil }
        self = value
    }
}

extension Array: JSONRepresentable where Element: JSONRepresentable {
    public init?(json: JSONValue) {
        guard case .array(let elements) = json else { return nil }
        var result: [Element] = []
        result.reserveCapacity(elements.count)
        for element in elements {
            guard let value = Element(json: element) else { return nil }
            result.append(value)
        }
        self = result
    }
}

extension DataObject: JSONRepresentable {
    public init?(json: JSONValue) {
        guard case .object(let values) = json else { return nil }
        self.values = values
    }
}

extension JSONValue: JSONRepresentable {
    public init?(json: JSONValue) {
        self = json
    }
}
