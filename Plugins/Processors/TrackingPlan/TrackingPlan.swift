public import TelemetryKit
public import TelemetryKitTypedEvents

#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

/// The events an app sends, with each parameter's key, type and optionality, taken from its
/// typed events.
///
/// It is the one list that product, engineering and the dashboards agree on, written by the
/// compiler instead of by hand. Export it as JSON for review or for the dev collector
/// (`telemetrykit collect --plan plan.json`), and check the events an app still sends by name
/// with `TrackingPlanProcessor`:
///
/// ```swift
/// let plan = TrackingPlan(CheckoutCompleted.self, Checkout.self)
/// try plan.jsonData().write(to: URL(fileURLWithPath: "plan.json"))
/// ```
///
/// Keys in the reserved `TelemetryDeck.` namespace (the SDK's metadata) and events named
/// there (the SDK's own) are never violations. Parameters every event may carry, such as the
/// configuration's default parameters, go in ``commonParameters``.
public struct TrackingPlan: Sendable, Hashable, Codable {
    /// Every event of the plan, in the order the types (and an enum's cases) were given.
    public private(set) var events: [EventSchema]
    /// Parameters that any event may carry (each is optional), e.g. default parameters.
    public var commonParameters: [EventSchema.Parameter]
    /// The positions in ``events`` of each name, so that checking an event costs one lookup.
    private var positions: [String: [Int]]

    private enum CodingKeys: String, CodingKey {
        case events
        case commonParameters
    }

    /// A plan of the events `types` send.
    ///
    /// - Parameters:
    ///   - types: typed events; an enum contributes one event per case.
    ///   - commonParameters: parameters any event may carry, e.g. the default parameters.
    public init(_ types: any TypedEvent.Type..., commonParameters: [EventSchema.Parameter] = []) {
        self.init(events: types.flatMap { $0.eventSchemas }, commonParameters: commonParameters)
    }

    /// A plan of the given events; an event listed twice with the same schema is kept once.
    public init(events: [EventSchema], commonParameters: [EventSchema.Parameter] = []) {
        var seen = Set<EventSchema>()
        let unique = events.filter { seen.insert($0).inserted }
        self.events = unique
        self.commonParameters = commonParameters
        self.positions = Dictionary(grouping: unique.indices) { unique[$0].name }
    }

    /// Reads a plan from its JSON form (see ``jsonData()``).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            events: try container.decode([EventSchema].self, forKey: .events),
            commonParameters: try container.decodeIfPresent([EventSchema.Parameter].self, forKey: .commonParameters)
                ?? []
        )
    }

    /// The plan as JSON: `{"commonParameters": [...], "events": [{"name", "parameters":
    /// [{"key", "type", "isOptional"}], "floatValue": {"isOptional"}}]}`, pretty-printed with
    /// sorted keys so that a committed plan diffs line by line.
    public func jsonData() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }

    /// Reads a plan written by ``jsonData()``.
    ///
    /// - Throws: `DecodingError` naming the member that is missing or has the wrong type.
    public init(jsonData: Data) throws {
        self = try JSONDecoder().decode(TrackingPlan.self, from: jsonData)
    }

    /// The schemas named `name` (more than one only when two types declare the same name
    /// differently).
    public func schemas(named name: String) -> [EventSchema] {
        positions[name, default: []].map { events[$0] }
    }

    /// What is wrong with an event sent as `name` with `parameters` and `floatValue`; empty
    /// when the plan allows it.
    ///
    /// An event whose name the plan declares more than once is allowed when any of the
    /// declarations allows it; otherwise the first one's violations are returned.
    public func violations(
        name: String,
        parameters: [String: PayloadValue],
        floatValue: Double?
    ) -> [TrackingPlanViolation] {
        if SDKInfo.isReserved(name) { return [] }
        guard let candidates = positions[name] else { return [.unknownEvent(name: name)] }
        var first: [TrackingPlanViolation]?
        for position in candidates {
            let found = violations(of: events[position], parameters: parameters, floatValue: floatValue)
            if found.isEmpty { return [] }
            if first == nil { first = found }
        }
        return first ?? []
    }

    private func violations(
        of schema: EventSchema,
        parameters: [String: PayloadValue],
        floatValue: Double?
    ) -> [TrackingPlanViolation] {
        var found: [TrackingPlanViolation] = []
        var declared = Set<String>()
        for parameter in schema.parameters {
            declared.insert(parameter.key)
            guard let value = parameters[parameter.key] else {
                if !parameter.isOptional { found.append(.missingParameter(event: schema.name, key: parameter.key)) }
                continue
            }
            if !parameter.type.accepts(value) {
                found.append(
                    .wrongType(event: schema.name, key: parameter.key, expected: parameter.type, found: value.typeName)
                )
            }
        }
        for parameter in commonParameters where !declared.contains(parameter.key) {
            declared.insert(parameter.key)
            if let value = parameters[parameter.key], !parameter.type.accepts(value) {
                found.append(
                    .wrongType(event: schema.name, key: parameter.key, expected: parameter.type, found: value.typeName)
                )
            }
        }
        for key in parameters.keys.sorted() where !declared.contains(key) && !SDKInfo.isReserved(key) {
            found.append(.unexpectedParameter(event: schema.name, key: key))
        }
        switch (schema.floatValue, floatValue) {
        case (nil, .some):
            found.append(.unexpectedFloatValue(event: schema.name))
        case (.some(let declaration), nil) where !declaration.isOptional:
            found.append(.missingFloatValue(event: schema.name))
        default:
            break
        }
        return found
    }
}

/// One way an event breaks a ``TrackingPlan``.
///
/// Equal violations describe the same mistake (the same event, key and types, whatever the
/// values), so a reporter can say each one once.
public enum TrackingPlanViolation: Sendable, Hashable, CustomStringConvertible {
    /// No event of the plan has this name.
    case unknownEvent(name: String)
    /// A parameter the plan requires is missing.
    case missingParameter(event: String, key: String)
    /// A parameter the plan does not list for this event.
    case unexpectedParameter(event: String, key: String)
    /// A parameter whose value has another type than the plan's (`found` is the payload's
    /// JSON type: `string`, `int`, `double` or `bool`).
    case wrongType(event: String, key: String, expected: EventParameterType, found: String)
    /// The plan's event has a required float value and none was sent.
    case missingFloatValue(event: String)
    /// A float value was sent with an event whose plan has none.
    case unexpectedFloatValue(event: String)

    public var description: String {
        switch self {
        case .unknownEvent(let name):
            return "'\(name)' is not in the tracking plan"
        case .missingParameter(let event, let key):
            return "'\(event)' is missing its parameter '\(key)'"
        case .unexpectedParameter(let event, let key):
            return "'\(event)' has the parameter '\(key)', which the tracking plan does not list"
        case .wrongType(let event, let key, let expected, let found):
            return "'\(event)' sends '\(key)' as \(found); the tracking plan says \(expected.rawValue)"
        case .missingFloatValue(let event):
            return "'\(event)' is missing its float value"
        case .unexpectedFloatValue(let event):
            return "'\(event)' has a float value, which the tracking plan does not list"
        }
    }
}

extension PayloadValue {
    /// The payload's JSON type, as violations name it.
    fileprivate var typeName: String {
        switch self {
        case .string: return "string"
        case .int: return "int"
        case .double: return "double"
        case .bool: return "bool"
        }
    }
}
