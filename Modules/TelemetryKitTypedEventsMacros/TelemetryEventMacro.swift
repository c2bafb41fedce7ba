#if TypedEvents
import SwiftDiagnostics
import SwiftParser
public import SwiftSyntax
import SwiftSyntaxBuilder
public import SwiftSyntaxMacros

/// `@TelemetryEvent`: conforms a struct or an enum to `TelemetryKitTypedEvents.TypedEvent`.
///
/// The expansion is an extension with `eventSchemas`, `eventName`, `parameters` and (when the
/// type has one) `floatValue`, written out property by property: no reflection, one dictionary
/// per event. The macro sees syntax only, so it checks what syntax shows (names, keys, the
/// shape of each type) and leaves the question "is this type supported?" to the compiler:
/// every value goes through `TypedEventCoding`, whose overloads accept exactly the supported
/// types.
public struct TelemetryEventMacro: ExtensionMacro {
    /// The first component of every reserved name and key (`SDKInfo.reservedPrefix` in the core;
    /// the compiler plugin does not link the core).
    static let reservedPrefix = "TelemetryDeck."
    /// What `TypedEvent` declares: a stored property with one of these names would clash.
    static let protocolMembers: Set<String> = ["eventName", "parameters", "floatValue", "eventSchemas"]

    public static func expansion(
        of node: AttributeSyntax,
        attachedTo declaration: some DeclGroupSyntax,
        providingExtensionsOf type: some TypeSyntaxProtocol,
        conformingTo protocols: [TypeSyntax],
        in context: some MacroExpansionContext
    ) throws -> [ExtensionDeclSyntax] {
        var diagnostics = Diagnostics()
        let qualifiedName = qualifiedTypeName(of: declaration, in: context)
        let body: String?
        if let structDecl = declaration.as(StructDeclSyntax.self) {
            body = structMembers(structDecl, node: node, typeName: qualifiedName, diagnostics: &diagnostics)
        } else if let enumDecl = declaration.as(EnumDeclSyntax.self) {
            body = enumMembers(enumDecl, node: node, typeName: qualifiedName, diagnostics: &diagnostics)
        } else {
            diagnoseWrongKind(declaration, diagnostics: &diagnostics)
            body = nil
        }
        for diagnostic in diagnostics.list { context.diagnose(diagnostic) }
        guard let body, diagnostics.list.isEmpty else { return [] }
        let conformance = protocols.isEmpty ? "" : ": TelemetryKitTypedEvents.TypedEvent"
        let decl: DeclSyntax = "extension \(type.trimmed)\(raw: conformance) {\n\(raw: body)\n}"
        guard let extensionDecl = decl.as(ExtensionDeclSyntax.self) else { return [] }
        return [extensionDecl]
    }

    // MARK: Names

    /// The type's name qualified with the types it is nested in (`Checkout.Completed`).
    static func qualifiedTypeName(
        of declaration: some DeclGroupSyntax,
        in context: some MacroExpansionContext
    )
        -> String
    {
        var components = [ownName(of: Syntax(declaration)) ?? ""]
        for enclosing in context.lexicalContext {
            if let name = ownName(of: enclosing) {
                components.insert(name, at: 0)
            } else if let extensionDecl = enclosing.as(ExtensionDeclSyntax.self) {
                components.insert(extensionDecl.extendedType.trimmedDescription, at: 0)
            }
        }
        return components.joined(separator: ".")
    }

    private static func ownName(of syntax: Syntax) -> String? {
        let token: TokenSyntax? =
            syntax.as(StructDeclSyntax.self)?.name ?? syntax.as(EnumDeclSyntax.self)?.name
            ?? syntax.as(ClassDeclSyntax.self)?.name ?? syntax.as(ActorDeclSyntax.self)?.name
            ?? syntax.as(ProtocolDeclSyntax.self)?.name
        return token.map { unescaped($0.text) }
    }

    static func unescaped(_ identifier: String) -> String {
        identifier.hasPrefix("`") && identifier.hasSuffix("`") && identifier.count >= 2
            ? String(identifier.dropFirst().dropLast()) : identifier
    }

    /// The string argument of `attribute`, checked as an event name (or an enum's prefix):
    /// nil when there is no argument, `.invalid` after a diagnostic.
    static func nameArgument(
        of attribute: AttributeSyntax,
        fallback: String,
        diagnostics: inout Diagnostics
    ) -> NameArgument {
        guard case .argumentList(let arguments) = attribute.arguments, let first = arguments.first else {
            return .absent
        }
        guard let literal = first.expression.as(StringLiteralExprSyntax.self),
            let value = literal.representedLiteralValue
        else {
            diagnostics.add(first.expression, .nameNotLiteral)
            return .invalid
        }
        if value.isEmpty {
            diagnostics.add(literal, .emptyName, fixIt: .use(fallback), replacing: literal, with: fallback)
            return .invalid
        }
        if value.hasPrefix(reservedPrefix) {
            let rest = String(value.dropFirst(reservedPrefix.count))
            let suggestion = rest.isEmpty ? fallback : rest
            diagnostics.add(
                literal,
                .reservedName(value),
                fixIt: .use(suggestion),
                replacing: literal,
                with: suggestion
            )
            return .invalid
        }
        return .given(value)
    }

    enum NameArgument {
        case absent
        case invalid
        case given(String)
    }

    // MARK: Wrong declarations

    private static func diagnoseWrongKind(_ declaration: some DeclGroupSyntax, diagnostics: inout Diagnostics) {
        if let classDecl = declaration.as(ClassDeclSyntax.self) {
            diagnostics.add(
                classDecl.classKeyword,
                .notStructOrEnum(kind: "a class"),
                fixIt: .replaceKeyword(with: "struct"),
                changes: [
                    .replace(
                        oldNode: Syntax(classDecl.classKeyword),
                        newNode: Syntax(keyword(.struct, like: classDecl.classKeyword))
                    )
                ]
            )
        } else if let actorDecl = declaration.as(ActorDeclSyntax.self) {
            diagnostics.add(
                actorDecl.actorKeyword,
                .notStructOrEnum(kind: "an actor"),
                fixIt: .replaceKeyword(with: "struct"),
                changes: [
                    .replace(
                        oldNode: Syntax(actorDecl.actorKeyword),
                        newNode: Syntax(keyword(.struct, like: actorDecl.actorKeyword))
                    )
                ]
            )
        } else if let protocolDecl = declaration.as(ProtocolDeclSyntax.self) {
            diagnostics.add(protocolDecl.protocolKeyword, .notStructOrEnum(kind: "a protocol"))
        } else if let extensionDecl = declaration.as(ExtensionDeclSyntax.self) {
            diagnostics.add(extensionDecl.extensionKeyword, .notStructOrEnum(kind: "an extension"))
        } else {
            diagnostics.add(declaration, .notStructOrEnum(kind: "this declaration"))
        }
    }

    private static func keyword(_ keyword: Keyword, like token: TokenSyntax) -> TokenSyntax {
        .keyword(keyword, leadingTrivia: token.leadingTrivia, trailingTrivia: token.trailingTrivia)
    }

    // MARK: Structs

    private static func structMembers(
        _ structDecl: StructDeclSyntax,
        node: AttributeSyntax,
        typeName: String,
        diagnostics: inout Diagnostics
    ) -> String? {
        let argument = nameArgument(of: node, fallback: typeName, diagnostics: &diagnostics)
        // The properties are checked even under a bad name, so that every error shows at once.
        let analysis = PropertyAnalysis.analyze(structDecl.memberBlock, diagnostics: &diagnostics)
        let eventName: String
        switch argument {
        case .absent: eventName = typeName
        case .invalid: return nil
        case .given(let name): eventName = name
        }
        let access = accessPrefix(structDecl.modifiers)
        var members: [String] = []
        members.append(
            """
            \(access)static var eventSchemas: [TelemetryKitTypedEvents.EventSchema] {
                [
                    \(schemaExpression(name: eventName, parameters: analysis.parameters, floatValue: analysis.floatValue))
                ]
            }
            """
        )
        members.append("\(access)var eventName: Swift.String { \(literal(eventName)) }")
        members.append(
            """
            \(access)var parameters: TelemetryKit.EventParameters {
            \(parametersBody(analysis.parameters.map { ($0, "self.\($0.reference)") }))
            }
            """
        )
        if let floatValue = analysis.floatValue {
            members.append("\(access)var floatValue: Swift.Double? { self.\(floatValue.reference) }")
        }
        return members.joined(separator: "\n")
    }

    // MARK: Enums

    private static func enumMembers(
        _ enumDecl: EnumDeclSyntax,
        node: AttributeSyntax,
        typeName: String,
        diagnostics: inout Diagnostics
    ) -> String? {
        let prefix: String
        switch nameArgument(of: node, fallback: typeName, diagnostics: &diagnostics) {
        case .absent: prefix = typeName
        case .invalid: prefix = typeName  // the cases are still checked, so that every error shows at once
        case .given(let name): prefix = name
        }
        let cases = CaseAnalysis.analyze(enumDecl.memberBlock, prefix: prefix, diagnostics: &diagnostics)
        if cases.isEmpty {
            diagnostics.add(enumDecl.name, .noCases(enumName: unescaped(enumDecl.name.text)))
            return nil
        }
        let access = accessPrefix(enumDecl.modifiers)
        let schemas = cases.map {
            schemaExpression(name: $0.eventName, parameters: $0.parameters, floatValue: $0.floatValue)
        }
        var members: [String] = []
        members.append(
            """
            \(access)static var eventSchemas: [TelemetryKitTypedEvents.EventSchema] {
                [
                    \(schemas.joined(separator: ",\n"))
                ]
            }
            """
        )
        let nameCases = cases.map { "case .\($0.reference): \(literal($0.eventName))" }
        members.append(
            """
            \(access)var eventName: Swift.String {
                switch self {
                \(nameCases.joined(separator: "\n"))
                }
            }
            """
        )
        let parameterCases = cases.map { eventCase -> String in
            let bound = eventCase.parameters.map { ($0, "value\($0.position)") }
            return """
                case \(eventCase.pattern(binding: eventCase.parameters.map(\.position))):
                \(parametersBody(bound))
                """
        }
        members.append(
            """
            \(access)var parameters: TelemetryKit.EventParameters {
                switch self {
                \(parameterCases.joined(separator: "\n"))
                }
            }
            """
        )
        if cases.contains(where: { $0.floatValue != nil }) {
            var floatCases: [String] = []
            for eventCase in cases {
                if let floatValue = eventCase.floatValue {
                    floatCases.append(
                        "case \(eventCase.pattern(binding: [floatValue.position])): value\(floatValue.position)"
                    )
                }
            }
            let withoutFloat = cases.filter { $0.floatValue == nil }.map { ".\($0.reference)" }
            if !withoutFloat.isEmpty { floatCases.append("case \(withoutFloat.joined(separator: ", ")): nil") }
            members.append(
                """
                \(access)var floatValue: Swift.Double? {
                    switch self {
                    \(floatCases.joined(separator: "\n"))
                    }
                }
                """
            )
        }
        return members.joined(separator: "\n")
    }

    // MARK: Generated code

    private static func accessPrefix(_ modifiers: DeclModifierListSyntax) -> String {
        for modifier in modifiers {
            switch modifier.name.tokenKind {
            case .keyword(.public), .keyword(.open): return "public "
            case .keyword(.package): return "package "
            default: continue
            }
        }
        return ""
    }

    static func literal(_ value: String) -> String {
        StringLiteralExprSyntax(content: value).description
    }

    private static func schemaExpression(
        name: String,
        parameters: [EventParameter],
        floatValue: EventParameter?
    ) -> String {
        let parameterList = parameters.map {
            "TelemetryKitTypedEvents.EventSchema.Parameter(\nkey: \(literal($0.key)),\n"
                + "type: TelemetryKitTypedEvents.TypedEventCoding.parameterType(\($0.valueType).self),\n"
                + "isOptional: \($0.isOptional)\n)"
        }
        let floatArgument = floatValue.map {
            "TelemetryKitTypedEvents.EventSchema.FloatValue(isOptional: \($0.isOptional))"
        }
        let parameterArgument = parameterList.isEmpty ? "[]" : "[\n\(parameterList.joined(separator: ",\n"))\n]"
        return """
            TelemetryKitTypedEvents.EventSchema(
            name: \(literal(name)),
            parameters: \(parameterArgument),
            floatValue: \(floatArgument ?? "nil")
            )
            """
    }

    /// The statements that build the parameters of `bound` (each parameter with the
    /// expression that reads its value).
    private static func parametersBody(_ bound: [(EventParameter, String)]) -> String {
        guard !bound.isEmpty else { return "return TelemetryKit.EventParameters()" }
        var lines = [
            "var values = [Swift.String: TelemetryKit.PayloadValue](minimumCapacity: \(bound.count))"
        ]
        for (parameter, value) in bound {
            let key = literal(parameter.key)
            if parameter.isOptional {
                lines.append(
                    "if let value = \(value) { values[\(key)] = TelemetryKitTypedEvents.TypedEventCoding.payloadValue(value) }"
                )
            } else {
                lines.append("values[\(key)] = TelemetryKitTypedEvents.TypedEventCoding.payloadValue(\(value))")
            }
        }
        lines.append("return TelemetryKit.EventParameters(values)")
        return lines.joined(separator: "\n")
    }
}

/// A parameter of an event: a struct's property or an enum case's associated value.
struct EventParameter {
    /// The property's name as written (backticks kept), or the associated value's label.
    let reference: String
    let key: String
    /// The type without its optional wrapper, as written.
    let valueType: String
    let isOptional: Bool
    /// The associated value's position in its case (0 for properties).
    let position: Int
}

/// Diagnostics collected during one expansion, reported together.
struct Diagnostics {
    private(set) var list: [Diagnostic] = []

    mutating func add(_ node: some SyntaxProtocol, _ message: TypedEventDiagnostic) {
        list.append(Diagnostic(node: Syntax(node), message: message))
    }

    mutating func add(
        _ node: some SyntaxProtocol,
        _ message: TypedEventDiagnostic,
        fixIt: TypedEventFixIt,
        changes: [FixIt.Change]
    ) {
        list.append(Diagnostic(node: Syntax(node), message: message, fixIt: FixIt(message: fixIt, changes: changes)))
    }

    /// A diagnostic whose fix-it replaces `literal` with the string `replacement`.
    mutating func add(
        _ node: some SyntaxProtocol,
        _ message: TypedEventDiagnostic,
        fixIt: TypedEventFixIt,
        replacing literal: StringLiteralExprSyntax,
        with replacement: String
    ) {
        let newLiteral = StringLiteralExprSyntax(content: replacement)
            .with(\.leadingTrivia, literal.leadingTrivia)
            .with(\.trailingTrivia, literal.trailingTrivia)
        add(node, message, fixIt: fixIt, changes: [.replace(oldNode: Syntax(literal), newNode: Syntax(newLiteral))])
    }
}
#endif
