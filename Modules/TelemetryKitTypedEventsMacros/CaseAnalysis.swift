#if TypedEvents
import SwiftDiagnostics
import SwiftParser
import SwiftSyntax

/// One event of an enum: a case, its name, and its labelled associated values.
///
/// The name is `<prefix>.<caseName>` (the prefix is the enum's qualified name or the macro's
/// argument) unless `@EventName("...")` on the case declaration overrides it. Every associated
/// value is a parameter keyed by its label, except one labelled `floatValue`: it is the float
/// value.
struct CaseAnalysis {
    /// The case name as written (backticks kept).
    let reference: String
    let eventName: String
    let associatedValueCount: Int
    let parameters: [EventParameter]
    let floatValue: EventParameter?

    /// The pattern that matches this case and binds the associated values at `positions` as
    /// `value<position>`.
    func pattern(binding positions: [Int]) -> String {
        guard !positions.isEmpty else { return ".\(reference)" }
        let bound = (0..<associatedValueCount).map { positions.contains($0) ? "let value\($0)" : "_" }
        return ".\(reference)(\(bound.joined(separator: ", ")))"
    }

    static func analyze(
        _ memberBlock: MemberBlockSyntax,
        prefix: String,
        diagnostics: inout Diagnostics
    )
        -> [CaseAnalysis]
    {
        var cases: [CaseAnalysis] = []
        var names: [String: String] = [:]  // event name -> the case that sends it
        for member in memberBlock.members {
            guard let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) else { continue }
            let override = caseDecl.attributes.attribute(named: "EventName")
            for element in caseDecl.elements {
                let caseName = TelemetryEventMacro.unescaped(element.name.text)
                let defaultName = "\(prefix).\(caseName)"
                var eventName = defaultName
                if let override {
                    switch TelemetryEventMacro.nameArgument(
                        of: override,
                        fallback: defaultName,
                        diagnostics: &diagnostics
                    ) {
                    case .absent: break
                    case .invalid: continue
                    case .given(let name): eventName = name
                    }
                }
                if let first = names[eventName] {
                    diagnostics.add(element.name, .duplicateEventName(eventName, caseName: caseName, firstCase: first))
                    continue
                }
                names[eventName] = caseName
                guard let analyzed = analyzeValues(of: element, caseName: caseName, diagnostics: &diagnostics) else {
                    continue
                }
                cases.append(
                    CaseAnalysis(
                        reference: element.name.text,
                        eventName: eventName,
                        associatedValueCount: element.parameterClause?.parameters.count ?? 0,
                        parameters: analyzed.parameters,
                        floatValue: analyzed.floatValue
                    )
                )
            }
        }
        return cases
    }

    private static func analyzeValues(
        of element: EnumCaseElementSyntax,
        caseName: String,
        diagnostics: inout Diagnostics
    ) -> (parameters: [EventParameter], floatValue: EventParameter?)? {
        var parameters: [EventParameter] = []
        var floatValue: EventParameter?
        var valid = true
        for (position, value) in (element.parameterClause?.parameters ?? []).enumerated() {
            guard let label = value.firstName, label.tokenKind != .wildcard else {
                diagnostics.add(value, .unlabelledAssociatedValue(caseName: caseName, position: position + 1))
                valid = false
                continue
            }
            let key = TelemetryEventMacro.unescaped(label.text)
            let property = "\(caseName).\(key)"
            guard let shape = TypeShape.classify(value.type, property: property, diagnostics: &diagnostics) else {
                valid = false
                continue
            }
            let parameter = EventParameter(
                reference: label.text,
                key: key,
                valueType: shape.valueType,
                isOptional: shape.isOptional,
                position: position
            )
            if key == "floatValue" {
                guard shape.isDouble else {
                    diagnostics.add(
                        value.type,
                        .floatValueNotDouble(property: property, type: value.type.trimmedDescription)
                    )
                    valid = false
                    continue
                }
                floatValue = parameter
            } else {
                parameters.append(parameter)
            }
        }
        return valid ? (parameters, floatValue) : nil
    }
}
#endif
