#if TypedEvents
public import SwiftSyntax
public import SwiftSyntaxMacros

/// `@EventParameter("key")`: read by `@TelemetryEvent`; on its own it only checks that it
/// marks a property.
public struct EventParameterMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        checkPlacement(node, on: declaration, allowed: VariableDeclSyntax.self, expected: "a property", context)
        return []
    }
}

/// `@EventFloatValue`: read by `@TelemetryEvent`; on its own it only checks that it marks a
/// property.
public struct EventFloatValueMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        checkPlacement(node, on: declaration, allowed: VariableDeclSyntax.self, expected: "a property", context)
        return []
    }
}

/// `@EventName("name")`: read by `@TelemetryEvent`; on its own it only checks that it marks an
/// enum case.
public struct EventNameMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax,
        providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        checkPlacement(node, on: declaration, allowed: EnumCaseDeclSyntax.self, expected: "a case", context)
        return []
    }
}

private func checkPlacement<Allowed: DeclSyntaxProtocol>(
    _ node: AttributeSyntax,
    on declaration: some DeclSyntaxProtocol,
    allowed: Allowed.Type,
    expected: String,
    _ context: some MacroExpansionContext
) {
    guard !declaration.is(Allowed.self) else { return }
    var diagnostics = Diagnostics()
    diagnostics.add(
        node,
        .markerMisplaced(attribute: node.attributeName.trimmedDescription, expected: expected)
    )
    for diagnostic in diagnostics.list { context.diagnose(diagnostic) }
}
#endif
