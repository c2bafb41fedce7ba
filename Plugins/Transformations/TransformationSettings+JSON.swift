import TelemetryKit

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

extension TransformationSettings {
    /// Loads an array of settings; the first invalid entry throws.
    ///
    /// - Throws: ``TransformationSettingsError`` naming the entry index and field.
    public static func decode(json data: Data) throws(TransformationSettingsError) -> [TransformationSettings] {
        var settings: [TransformationSettings] = []
        for (index, entry) in try entries(in: data).enumerated() {
            settings.append(try decodeEntry(entry, index: index))
        }
        return settings
    }

    /// Loads the valid entries of an array of settings, and an error for each invalid one.
    ///
    /// - Throws: ``TransformationSettingsError`` only when the data is not a JSON array.
    public static func decodeLeniently(
        json data: Data
    ) throws(TransformationSettingsError) -> (
        settings: [TransformationSettings], errors: [TransformationSettingsError]
    ) {
        var settings: [TransformationSettings] = []
        var errors: [TransformationSettingsError] = []
        for (index, entry) in try entries(in: data).enumerated() {
            do {
                settings.append(try decodeEntry(entry, index: index))
            } catch {
                errors.append(error)
            }
        }
        return (settings, errors)
    }

    /// Reads a settings file (see ``decode(json:)``).
    public static func decode(contentsOf url: URL) throws(TransformationSettingsError) -> [TransformationSettings] {
        try decode(json: readFile(url))
    }

    /// Reads a settings file leniently (see ``decodeLeniently(json:)``).
    public static func decodeLeniently(
        contentsOf url: URL
    ) throws(TransformationSettingsError) -> (
        settings: [TransformationSettings], errors: [TransformationSettingsError]
    ) {
        try decodeLeniently(json: readFile(url))
    }

    /// One entry from its JSON object.
    ///
    /// The configuration of the built-in transformers is checked here as well.
    public init(json: JSONValue) throws(TransformationSettingsError) {
        let reader = SettingsReader(json)
        let members = try reader.object()
        id = try reader.required(Keys.transformationID, in: members).nonEmptyString()
        transformerID = try reader.required(Keys.transformerID, in: members).nonEmptyString()
        let scopeReader = try reader.required(Keys.scope, in: members)
        guard let scope = TransformationScope(json: scopeReader.value) else {
            switch scopeReader.value {
            case .string(let name): throw scopeReader.error(.unknownScope("'\(name)'"))
            case .array:
                throw scopeReader.error(.invalidValue("a scope array must list one or more destination ids"))
            default:
                throw scopeReader.error(
                    .wrongType(expected: "string or array of destination ids", found: scopeReader.value.typeName)
                )
            }
        }
        self.scope = scope
        order = try reader.optional(Keys.order, in: members)?.integer()
        conditions = try reader.optional(Keys.conditions, in: members).map {
            (reader: SettingsReader) throws(TransformationSettingsError) -> Rule<Condition> in
            try Rule<Condition>(reader: reader)
        }
        if let configurationReader = reader.optional(Keys.configuration, in: members) {
            configuration = DataObject(try configurationReader.object())
        } else {
            configuration = [:]
        }
        try BuiltInTransformers.validate(self)
    }

    /// The entry's JSON object (the form ``init(json:)`` reads).
    public var json: JSONValue {
        var object: [String: JSONValue] = [
            Keys.transformationID: .string(id),
            Keys.transformerID: .string(transformerID),
            Keys.scope: scope.json,
            Keys.configuration: .object(configuration.values),
        ]
        if let order { object[Keys.order] = .int(Int64(order)) }
        if let conditions { object[Keys.conditions] = conditions.json }
        return .object(object)
    }

    /// Encodes settings as a JSON array, the form ``decode(json:)`` reads.
    public static func encode(_ settings: [TransformationSettings]) throws -> Data {
        try JSONEncoder().encode(JSONValue.array(settings.map(\.json)))
    }

    private static func entries(in data: Data) throws(TransformationSettingsError) -> [JSONValue] {
        let document: JSONValue
        do {
            document = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw TransformationSettingsError(reason: .invalidJSON("\(error)"))
        }
        guard case .array(let entries) = document else {
            throw TransformationSettingsError(reason: .wrongType(expected: "array", found: document.typeName))
        }
        return entries
    }

    private static func decodeEntry(
        _ entry: JSONValue,
        index: Int
    ) throws(TransformationSettingsError)
        -> TransformationSettings
    {
        do {
            return try TransformationSettings(json: entry)
        } catch {
            var error = error
            error.index = index
            throw error
        }
    }

    private static func readFile(_ url: URL) throws(TransformationSettingsError) -> Data {
        do {
            return try Data(contentsOf: url)
        } catch {
            throw TransformationSettingsError(reason: .unreadableFile(path: url.path, message: "\(error)"))
        }
    }
}

// MARK: - Conditions

extension Rule where Item == Condition {
    /// A rule from its JSON form: `{"operator": "and" | "or" | "not", "children": [...]}` or a
    /// condition `{"variable": {"key": "x"}, "operator": "equals", "filter": {"value": "y"}}`.
    public init(json: JSONValue) throws(TransformationSettingsError) {
        try self.init(reader: SettingsReader(json, path: TransformationSettings.Keys.conditions))
    }

    init(reader: SettingsReader) throws(TransformationSettingsError) {
        typealias Keys = TransformationSettings.Keys
        let members = try reader.object()
        let operatorReader = try reader.required(Keys.operator, in: members)
        let name = try operatorReader.string()
        switch name.lowercased() {
        case "and", "or", "not":
            let children = try reader.required(Keys.children, in: members).array().map {
                (child: SettingsReader) throws(TransformationSettingsError) -> Rule<Condition> in
                try Rule<Condition>(reader: child)
            }
            guard let first = children.first else {
                throw reader.error(.emptyChildren(operator: name.lowercased()), field: reader.fieldPath(Keys.children))
            }
            switch name.lowercased() {
            case "and": self = .and(children)
            case "or": self = .or(children)
            default:
                guard children.count == 1 else {
                    throw reader.error(
                        .tooManyChildren(operator: "not", count: children.count),
                        field: reader.fieldPath(Keys.children)
                    )
                }
                self = .not(first)
            }
        default:
            self = .just(try Condition(reader: reader, members: members))
        }
    }

    /// The rule's JSON form.
    public var json: JSONValue {
        typealias Keys = TransformationSettings.Keys
        switch self {
        case .just(let condition): return condition.json
        case .and(let children): return [Keys.operator: "and", Keys.children: .array(children.map(\.json))]
        case .or(let children): return [Keys.operator: "or", Keys.children: .array(children.map(\.json))]
        case .not(let child): return [Keys.operator: "not", Keys.children: [child.json]]
        }
    }
}

extension Condition {
    init(reader: SettingsReader, members: [String: JSONValue]) throws(TransformationSettingsError) {
        typealias Keys = TransformationSettings.Keys
        let operatorReader = try reader.required(Keys.operator, in: members)
        let name = try operatorReader.string()
        guard let op = Operator(jsonName: name) else {
            throw operatorReader.error(.unknownOperator(name))
        }
        let variable = try reader.required(Keys.variable, in: members).variable()
        var filter: String?
        if op.requiresFilter {
            let filterReader = try reader.required(Keys.filter, in: members)
            if case .object(let filterMembers) = filterReader.value {
                filter = try filterReader.required(Keys.value, in: filterMembers).scalar().stringValue
            } else {
                filter = try filterReader.scalar().stringValue
            }
        }
        do {
            try self.init(variable: variable, operator: op, filter: filter)
        } catch {
            throw reader.error(.invalidCondition(error), field: reader.fieldPath(Keys.filter))
        }
    }

    /// The condition's JSON form.
    public var json: JSONValue {
        typealias Keys = TransformationSettings.Keys
        var object: [String: JSONValue] = [
            Keys.variable: [Keys.key: .string(variable.key)],
            Keys.operator: .string(`operator`.rawValue),
        ]
        if let filter { object[Keys.filter] = [Keys.value: .string(filter)] }
        return .object(object)
    }
}
