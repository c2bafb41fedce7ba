#if TypedEvents
import SwiftSyntax
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import TelemetryKitTypedEventsMacros
import Testing

/// The macros as the library declares them (`@TelemetryEvent` adds `TypedEvent`).
let typedEventMacros: [String: MacroSpec] = [
    "TelemetryEvent": MacroSpec(
        type: TelemetryEventMacro.self,
        conformances: [TypeSyntax(IdentifierTypeSyntax(name: .identifier("TypedEvent")))]
    ),
    "EventParameter": MacroSpec(type: EventParameterMacro.self),
    "EventFloatValue": MacroSpec(type: EventFloatValueMacro.self),
    "EventName": MacroSpec(type: EventNameMacro.self),
]

/// `assertMacroExpansion` reporting through Swift Testing.
func assertExpansion(
    _ source: String,
    expandedSource: String,
    diagnostics: [DiagnosticSpec] = [],
    applyFixIts: [String]? = nil,
    fixedSource: String? = nil,
    sourceLocation: Testing.SourceLocation = #_sourceLocation
) {
    assertMacroExpansion(
        source,
        expandedSource: expandedSource,
        diagnostics: diagnostics,
        macroSpecs: typedEventMacros,
        applyFixIts: applyFixIts,
        fixedSource: fixedSource,
        failureHandler: { failure in
            Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation)
        }
    )
}
#endif
