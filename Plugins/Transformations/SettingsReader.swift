import TelemetryKit

/// Reads a JSON value for the settings loader, naming the field path in every error.
struct SettingsReader {
    let value: JSONValue
    /// The path of `value` inside its entry; empty for the entry itself.
    let path: String

    init(_ value: JSONValue, path: String = "") {
        self.value = value
        self.path = path
    }

    func fieldPath(_ key: String) -> String {
        path.isEmpty ? key : "\(path).\(key)"
    }

    func error(_ reason: TransformationSettingsError.Reason, field: String? = nil) -> TransformationSettingsError {
        let field = field ?? path
        return TransformationSettingsError(field: field.isEmpty ? nil : field, reason: reason)
    }

    func object() throws(TransformationSettingsError) -> [String: JSONValue] {
        guard case .object(let members) = value else {
            throw error(.wrongType(expected: "object", found: value.typeName))
        }
        return members
    }

    func array() throws(TransformationSettingsError) -> [SettingsReader] {
        guard case .array(let elements) = value else {
            throw error(.wrongType(expected: "array", found: value.typeName))
        }
        return elements.enumerated().map { SettingsReader($0.element, path: "\(path)[\($0.offset)]") }
    }

    func string() throws(TransformationSettingsError) -> String {
        guard case .string(let string) = value else {
            throw error(.wrongType(expected: "string", found: value.typeName))
        }
        return string
    }

    func nonEmptyString() throws(TransformationSettingsError) -> String {
        let string = try string()
        guard !string.isEmpty else { throw error(.invalidValue("must not be empty")) }
        return string
    }

    func integer() throws(TransformationSettingsError) -> Int {
        guard let integer = Int(json: value) else {
            throw error(.wrongType(expected: "integer", found: value.typeName))
        }
        return integer
    }

    /// A scalar as a payload value (string, number or boolean).
    func scalar() throws(TransformationSettingsError) -> PayloadValue {
        guard let payload = value.payloadValue else {
            throw error(.wrongType(expected: "string, number or boolean", found: value.typeName))
        }
        return payload
    }

    /// A variable: `{"key": "name"}`, or the key as a plain string.
    func variable() throws(TransformationSettingsError) -> VariableAccessor {
        if case .string = value {
            return VariableAccessor(key: try nonEmptyString())
        }
        let members = try object()
        if let nested = members["path"], nested != .null, nested != .array([]) {
            throw error(.invalidValue("nested paths are not supported: payloads are flat"), field: fieldPath("path"))
        }
        return VariableAccessor(key: try required("key", in: members).nonEmptyString())
    }

    /// The member `key` of `members`, or a missing-field error.
    func required(
        _ key: String,
        in members: [String: JSONValue]
    ) throws(TransformationSettingsError)
        -> SettingsReader
    {
        guard let member = members[key], member != .null else {
            throw error(.missingField, field: fieldPath(key))
        }
        return SettingsReader(member, path: fieldPath(key))
    }

    /// The member `key` of `members`, or nil when it is missing or null.
    func optional(_ key: String, in members: [String: JSONValue]) -> SettingsReader? {
        guard let member = members[key], member != .null else { return nil }
        return SettingsReader(member, path: fieldPath(key))
    }
}
