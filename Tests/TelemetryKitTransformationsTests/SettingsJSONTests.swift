import TelemetryKit
import TelemetryKitTransformations
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

let specSettingsJSON = """
    [
      {"transformation_id": "normalize", "transformer_id": "Lowercase", "scope": "AfterCollectors", "order": 10},
      {"transformation_id": "tag-purchase", "transformer_id": "SetDataValues", "scope": "afterprocessors",
       "conditions": {"variable": {"key": "event_name"}, "operator": "equals_ignore_case", "filter": {"value": "purchase"}},
       "configuration": {"operations": [{"constant": "high_value", "to": {"key": "user_segment"}}]}},
      {"transformation_id": "copy-email", "transformer_id": "SetDataValues", "scope": ["Collect", "Trace"],
       "configuration": {"operations": [{"from": {"key": "raw_email"}, "to": {"key": "email"}}]}},
      {"transformation_id": "remember-plan", "transformer_id": "PersistDataValue", "scope": "ALLDISPATCHERS",
       "order": 5, "conditions": null,
       "configuration": {"from": {"key": "plan"}, "to": {"key": "user_plan"}, "expiry": "session",
                         "update_policy": "keep_first_value"}},
      {"transformation_id": "custom", "transformer_id": "MyCustomTransformer", "scope": "alldestinations",
       "configuration": {"enable_enrichment": false}}
    ]
    """

let specSettings: [TransformationSettings] = [
    LowercaseSettingsBuilder(id: "normalize").lowercaseAllVariables().setScope(.afterCollectors).setOrder(10).build(),
    SetDataValuesSettingsBuilder(id: "tag-purchase")
        .setConstant("high_value", to: .key("user_segment"))
        .setScope(.afterCollectors)
        .setConditions(.just(Condition.equals(ignoreCase: true, variable: "event_name", target: "purchase")))
        .build(),
    SetDataValuesSettingsBuilder(id: "copy-email")
        .setFrom(.key("raw_email"), to: .key("email"))
        .setScope(.dispatchers(["Collect", "Trace"]))
        .build(),
    PersistDataValueSettingsBuilder(id: "remember-plan")
        .persist(.key("plan"), as: .key("user_plan"))
        .setExpiry(.session)
        .setUpdatePolicy(.keepFirstValue)
        .setScope(.allDispatchers)
        .setOrder(5)
        .build(),
    TransformationSettings(
        id: "custom",
        transformerID: "MyCustomTransformer",
        scope: .allDestinations,
        configuration: ["enable_enrichment": false]
    ),
]

/// An error expected from a settings document with one bad entry.
struct BadEntryCase: Sendable, CustomTestStringConvertible {
    var entry: String
    var field: String?
    var reason: TransformationSettingsError.Reason
    var testDescription: String { "\(field ?? "-"): \(reason)" }
}

private let valid = #"{"transformation_id": "ok", "transformer_id": "Lowercase", "scope": "afterprocessors"}"#

let badEntryCases: [BadEntryCase] = [
    BadEntryCase(entry: #""just a string""#, field: nil, reason: .wrongType(expected: "object", found: "string")),
    BadEntryCase(
        entry: #"{"transformer_id": "Lowercase", "scope": "afterprocessors"}"#,
        field: "transformation_id",
        reason: .missingField
    ),
    BadEntryCase(
        entry: #"{"transformation_id": 7, "transformer_id": "Lowercase", "scope": "afterprocessors"}"#,
        field: "transformation_id",
        reason: .wrongType(expected: "string", found: "number")
    ),
    BadEntryCase(
        entry: #"{"transformation_id": "x", "transformer_id": "", "scope": "afterprocessors"}"#,
        field: "transformer_id",
        reason: .invalidValue("must not be empty")
    ),
    BadEntryCase(
        entry: #"{"transformation_id": "x", "transformer_id": "Lowercase", "scope": "sometimes"}"#,
        field: "scope",
        reason: .unknownScope("'sometimes'")
    ),
    BadEntryCase(
        entry: #"{"transformation_id": "x", "transformer_id": "Lowercase", "scope": 3}"#,
        field: "scope",
        reason: .wrongType(expected: "string or array of destination ids", found: "number")
    ),
    BadEntryCase(
        entry: #"{"transformation_id": "x", "transformer_id": "Lowercase", "scope": []}"#,
        field: "scope",
        reason: .invalidValue("a scope array must list one or more destination ids")
    ),
    BadEntryCase(
        entry:
            #"{"transformation_id": "x", "transformer_id": "Lowercase", "scope": "afterprocessors", "order": "ten"}"#,
        field: "order",
        reason: .wrongType(expected: "integer", found: "string")
    ),
    BadEntryCase(
        entry: #"{"transformation_id": "x", "transformer_id": "Lowercase", "scope": "afterprocessors", "order": 1.5}"#,
        field: "order",
        reason: .wrongType(expected: "integer", found: "number")
    ),
    BadEntryCase(
        entry: #"""
            {"transformation_id": "x", "transformer_id": "Lowercase", "scope": "afterprocessors",
             "conditions": {"operator": "and", "children": [
                {"variable": {"key": "a"}, "operator": "defined"},
                {"variable": {"key": "b"}, "operator": "is_roughly", "filter": {"value": "c"}}]}}
            """#,
        field: "conditions.children[1].operator",
        reason: .unknownOperator("is_roughly")
    ),
    BadEntryCase(
        entry: #"""
            {"transformation_id": "x", "transformer_id": "Lowercase", "scope": "afterprocessors",
             "conditions": {"operator": "or", "children": [{"operator": "not", "children": []}]}}
            """#,
        field: "conditions.children[0].children",
        reason: .emptyChildren(operator: "not")
    ),
    BadEntryCase(
        entry: #"""
            {"transformation_id": "x", "transformer_id": "Lowercase", "scope": "afterprocessors",
             "conditions": {"operator": "not", "children": [
                {"variable": {"key": "a"}, "operator": "defined"}, {"variable": {"key": "b"}, "operator": "defined"}]}}
            """#,
        field: "conditions.children",
        reason: .tooManyChildren(operator: "not", count: 2)
    ),
    BadEntryCase(
        entry: #"""
            {"transformation_id": "x", "transformer_id": "Lowercase", "scope": "afterprocessors",
             "conditions": {"operator": "and", "children": "all of them"}}
            """#,
        field: "conditions.children",
        reason: .wrongType(expected: "array", found: "string")
    ),
    BadEntryCase(
        entry: #"""
            {"transformation_id": "x", "transformer_id": "Lowercase", "scope": "afterprocessors",
             "conditions": {"variable": {"key": "a"}, "operator": "greater_than", "filter": {"value": "ten"}}}
            """#,
        field: "conditions.filter",
        reason: .invalidCondition(.filterNotANumber(.greaterThan, "ten"))
    ),
    BadEntryCase(
        entry: #"""
            {"transformation_id": "x", "transformer_id": "Lowercase", "scope": "afterprocessors",
             "conditions": {"variable": {"key": "a"}, "operator": "equals"}}
            """#,
        field: "conditions.filter",
        reason: .missingField
    ),
    BadEntryCase(
        entry: #"""
            {"transformation_id": "x", "transformer_id": "Lowercase", "scope": "afterprocessors",
             "conditions": {"variable": {"name": "a"}, "operator": "defined"}}
            """#,
        field: "conditions.variable.key",
        reason: .missingField
    ),
    BadEntryCase(
        entry: #"""
            {"transformation_id": "x", "transformer_id": "Lowercase", "scope": "afterprocessors",
             "conditions": {"variable": {"key": "a"}, "operator": "equals", "filter": {"value": ["b"]}}}
            """#,
        field: "conditions.filter.value",
        reason: .wrongType(expected: "string, number or boolean", found: "array")
    ),
    BadEntryCase(
        entry: #"""
            {"transformation_id": "x", "transformer_id": "SetDataValues", "scope": "afterprocessors",
             "configuration": {"operations": [{"constant": "v", "to": {"key": "a"}}, {"to": {"key": "b"}}]}}
            """#,
        field: "configuration.operations[1].from",
        reason: .missingField
    ),
    BadEntryCase(
        entry: #"""
            {"transformation_id": "x", "transformer_id": "SetDataValues", "scope": "afterprocessors",
             "configuration": {"operations": {"from": "a"}}}
            """#,
        field: "configuration.operations",
        reason: .wrongType(expected: "array", found: "object")
    ),
    BadEntryCase(
        entry: #"""
            {"transformation_id": "x", "transformer_id": "Lowercase", "scope": "afterprocessors",
             "configuration": {"variables": [{"key": "a"}, 5]}}
            """#,
        field: "configuration.variables[1]",
        reason: .wrongType(expected: "object", found: "number")
    ),
    BadEntryCase(
        entry: #"""
            {"transformation_id": "x", "transformer_id": "PersistDataValue", "scope": "afterprocessors",
             "configuration": {"from": {"key": "a"}, "expiry": -5}}
            """#,
        field: "configuration.expiry",
        reason: .invalidValue(#"expected "session", "forever", "untilrestart" or a positive number of seconds"#)
    ),
    BadEntryCase(
        entry: #"""
            {"transformation_id": "x", "transformer_id": "PersistDataValue", "scope": "afterprocessors",
             "configuration": {"from": {"key": "a"}, "update_policy": true}}
            """#,
        field: "configuration.update_policy",
        reason: .wrongType(expected: "string", found: "boolean")
    ),
    BadEntryCase(
        entry:
            #"{"transformation_id": "x", "transformer_id": "Lowercase", "scope": "afterprocessors", "configuration": []}"#,
        field: "configuration",
        reason: .wrongType(expected: "object", found: "array")
    ),
]

@Suite struct SettingsJSONTests {
    @Test func loadsTheSpecExamplesAndAliases() throws {
        let settings = try TransformationSettings.decode(json: Data(json: specSettingsJSON))
        #expect(settings == specSettings)
    }

    @Test func roundTripsThroughJSON() throws {
        let data = try TransformationSettings.encode(specSettings)
        #expect(try TransformationSettings.decode(json: data) == specSettings)
    }

    @Test(arguments: badEntryCases)
    func badEntryNamesIndexAndField(_ row: BadEntryCase) throws {
        let document = "[\(valid), \(valid), \(row.entry)]"
        #expect(throws: TransformationSettingsError(index: 2, field: row.field, reason: row.reason)) {
            try TransformationSettings.decode(json: Data(json: document))
        }
    }

    @Test func invalidRegularExpressionIsATypedError() throws {
        let document = """
            [{"transformation_id": "x", "transformer_id": "Lowercase", "scope": "afterprocessors",
              "conditions": {"variable": {"key": "a"}, "operator": "regular_expression", "filter": {"value": "a("}}}]
            """
        #expect {
            try TransformationSettings.decode(json: Data(json: document))
        } throws: { error in
            guard let error = error as? TransformationSettingsError,
                case .invalidCondition(.invalidRegularExpression(let pattern, _)) = error.reason
            else { return false }
            return error.index == 0 && error.field == "conditions.filter" && pattern == "a("
        }
    }

    @Test func documentErrors() {
        #expect {
            try TransformationSettings.decode(json: Data(json: "[{"))
        } throws: { error in
            guard let error = error as? TransformationSettingsError, case .invalidJSON = error.reason else {
                return false
            }
            return error.index == nil && error.field == nil
        }
        #expect(throws: TransformationSettingsError(reason: .wrongType(expected: "array", found: "object"))) {
            try TransformationSettings.decode(json: Data(json: valid))
        }
    }

    @Test func errorDescriptionNamesEntryAndField() {
        let error = TransformationSettingsError(index: 2, field: "scope", reason: .unknownScope("'sometimes'"))
        #expect(error.description == "entry 2, field 'scope': unknown scope 'sometimes'")
    }

    @Test func lenientLoadingKeepsTheValidEntries() throws {
        let document = """
            [\(valid),
             {"transformation_id": "bad", "transformer_id": "Lowercase", "scope": "never"},
             {"transformation_id": "ok2", "transformer_id": "Lowercase", "scope": ["A"], "order": 3}]
            """
        let (settings, errors) = try TransformationSettings.decodeLeniently(json: Data(json: document))
        #expect(settings.map(\.id) == ["ok", "ok2"])
        #expect(settings.last?.scope == .destinations(["A"]))
        #expect(errors == [TransformationSettingsError(index: 1, field: "scope", reason: .unknownScope("'never'"))])

        var config = TransformationConfiguration()
        #expect(throws: TransformationSettingsError.self) { try config.load(json: Data(json: document)) }
        #expect(config.settings.isEmpty)
        let reported = try config.load(json: Data(json: document), lenient: true)
        #expect(reported.map(\.index) == [1])
        #expect(config.settings.map(\.id) == ["ok", "ok2"])
    }

    @Test func loadsAFile() throws {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("transformations-\(UUID().uuidString).json")
        try Data(json: specSettingsJSON).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        var config = TransformationConfiguration()
        try config.load(contentsOf: url)
        #expect(config.settings == specSettings)
        #expect(try TransformationSettings.decode(contentsOf: url) == specSettings)

        let missing = url.appendingPathExtension("missing")
        #expect {
            try TransformationSettings.decode(contentsOf: missing)
        } throws: { error in
            guard case .unreadableFile(let path, _) = (error as? TransformationSettingsError)?.reason else {
                return false
            }
            return path == missing.path
        }
    }

    @Test func variablesMayBePlainStrings() throws {
        let document = """
            [{"transformation_id": "x", "transformer_id": "SetDataValues", "scope": "afterprocessors",
              "conditions": {"variable": "event_name", "operator": "equals", "filter": "purchase"},
              "configuration": {"operations": [{"from": "raw_email", "to": "email"}]}}]
            """
        let settings = try TransformationSettings.decode(json: Data(json: document))
        #expect(settings.first?.conditions == .just(.equals(variable: "event_name", target: "purchase")))
        var config = TransformationConfiguration()
        settings.forEach { config.setTransformation($0) }
        #expect(config.settings.count == 1)
    }
}
