/// Why transformation settings could not be loaded.
///
/// Names the entry (its index in the JSON array) and the field, as a path such as
/// `conditions.children[1].operator`:
///
/// ```
/// entry 2, field 'scope': unknown scope 'sometimes'
/// ```
public struct TransformationSettingsError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong.
    public enum Reason: Sendable, Hashable, CustomStringConvertible {
        /// The data is not JSON.
        case invalidJSON(String)
        /// The file could not be read.
        case unreadableFile(path: String, message: String)
        /// A required field is missing.
        case missingField
        /// A field has the wrong JSON type.
        case wrongType(expected: String, found: String)
        /// The scope is neither a known name nor an array of destination ids.
        case unknownScope(String)
        /// The condition operator is not one of the known operators.
        case unknownOperator(String)
        /// `and`, `or` or `not` has no children.
        case emptyChildren(operator: String)
        /// `not` has more than one child.
        case tooManyChildren(operator: String, count: Int)
        /// The condition's filter is invalid for its operator.
        case invalidCondition(ConditionError)
        /// Any other invalid value, explained.
        case invalidValue(String)

        public var description: String {
            switch self {
            case .invalidJSON(let message): return "invalid JSON: \(message)"
            case .unreadableFile(let path, let message): return "cannot read '\(path)': \(message)"
            case .missingField: return "missing"
            case .wrongType(let expected, let found): return "expected \(expected), found \(found)"
            case .unknownScope(let scope): return "unknown scope \(scope)"
            case .unknownOperator(let name): return "unknown operator '\(name)'"
            case .emptyChildren(let name): return "'\(name)' needs at least one child"
            case .tooManyChildren(let name, let count): return "'\(name)' takes exactly one child, found \(count)"
            case .invalidCondition(let error): return error.description
            case .invalidValue(let message): return message
            }
        }
    }

    /// The index of the entry in the settings array; nil for errors about the whole document.
    public var index: Int?
    /// The path of the field within the entry (nil for the entry or document itself).
    public var field: String?
    /// What is wrong.
    public var reason: Reason

    public init(index: Int? = nil, field: String? = nil, reason: Reason) {
        self.index = index
        self.field = field
        self.reason = reason
    }

    public var description: String {
        var location: [String] = []
        if let index { location.append("entry \(index)") }
        if let field { location.append("field '\(field)'") }
        let prefix = location.isEmpty ? "transformation settings" : location.joined(separator: ", ")
        return "\(prefix): \(reason)"
    }
}
