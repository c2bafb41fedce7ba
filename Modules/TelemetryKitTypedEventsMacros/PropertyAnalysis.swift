#if TypedEvents
import SwiftDiagnostics
import SwiftParser
import SwiftSyntax

/// The parameters and float value of a struct, read from its property declarations.
///
/// Stored instance properties are parameters; a computed property is one only when marked
/// `@EventParameter`; static properties never are. Keys are the property names unless
/// `@EventParameter("key")` renames them.
struct PropertyAnalysis {
    var parameters: [EventParameter] = []
    var floatValue: EventParameter?

    static func analyze(_ memberBlock: MemberBlockSyntax, diagnostics: inout Diagnostics) -> PropertyAnalysis {
        var analysis = PropertyAnalysis()
        var floatValueProperty: String?
        var keys: [String: String] = [:]  // key -> the property sent under it
        for member in memberBlock.members {
            guard let variable = member.decl.as(VariableDeclSyntax.self) else { continue }
            if variable.modifiers.contains(where: { [.keyword(.static), .keyword(.class)].contains($0.name.tokenKind) })
            {
                continue
            }
            let parameterAttribute = variable.attributes.attribute(named: "EventParameter")
            let floatAttribute = variable.attributes.attribute(named: "EventFloatValue")
            let isLazy = variable.modifiers.contains { $0.name.tokenKind == .keyword(.lazy) }
            for (binding, type) in variable.bindings.withTypes() {
                guard let pattern = binding.pattern.as(IdentifierPatternSyntax.self) else {
                    diagnostics.add(
                        binding.pattern,
                        .unsupportedType(
                            property: binding.pattern.trimmedDescription,
                            type: type?.trimmedDescription ?? "_",
                            reason: "a destructured tuple"
                        )
                    )
                    continue
                }
                let reference = pattern.identifier.text
                let name = TelemetryEventMacro.unescaped(reference)
                let isComputed = binding.accessorBlock.map(\.isComputed) ?? false
                if isComputed && parameterAttribute == nil && floatAttribute == nil { continue }
                if TelemetryEventMacro.protocolMembers.contains(name) {
                    diagnostics.add(pattern, .reservedMemberName(property: name))
                    continue
                }
                if isLazy {
                    diagnostics.add(variable.bindingSpecifier, .lazyProperty(property: name))
                    continue
                }
                guard let type else {
                    diagnoseMissingType(binding, pattern: pattern, name: name, diagnostics: &diagnostics)
                    continue
                }
                guard let shape = TypeShape.classify(type, property: name, diagnostics: &diagnostics) else { continue }
                if let floatAttribute {
                    if let parameterAttribute {
                        diagnostics.add(parameterAttribute, .floatValueWithKey(property: name))
                    } else if let first = floatValueProperty {
                        diagnostics.add(floatAttribute, .secondFloatValue(property: name, firstProperty: first))
                    } else if !shape.isDouble {
                        diagnostics.add(type, .floatValueNotDouble(property: name, type: type.trimmedDescription))
                    } else {
                        floatValueProperty = name
                        analysis.floatValue = EventParameter(
                            reference: reference,
                            key: name,
                            valueType: shape.valueType,
                            isOptional: shape.isOptional,
                            position: 0
                        )
                    }
                    continue
                }
                guard
                    let key = self.key(
                        of: name,
                        attribute: parameterAttribute,
                        taken: keys,
                        diagnostics: &diagnostics
                    )
                else { continue }
                if let first = keys[key] {
                    var fixIt: (TypedEventFixIt, StringLiteralExprSyntax)?
                    if let literal = parameterAttribute?.stringArgument, keys[name] == nil, key != name {
                        fixIt = (.use(name), literal)
                    }
                    let message = TypedEventDiagnostic.duplicateKey(key, property: name, firstProperty: first)
                    if let (fix, literal) = fixIt {
                        diagnostics.add(pattern, message, fixIt: fix, replacing: literal, with: name)
                    } else {
                        diagnostics.add(pattern, message)
                    }
                    continue
                }
                keys[key] = name
                analysis.parameters.append(
                    EventParameter(
                        reference: reference,
                        key: key,
                        valueType: shape.valueType,
                        isOptional: shape.isOptional,
                        position: 0
                    )
                )
            }
        }
        return analysis
    }

    /// The key `name` is sent under: the attribute's literal, or the name itself.
    private static func key(
        of name: String,
        attribute: AttributeSyntax?,
        taken: [String: String],
        diagnostics: inout Diagnostics
    ) -> String? {
        guard let attribute else { return name }
        guard let literal = attribute.stringArgument, let key = literal.representedLiteralValue else {
            diagnostics.add(attribute, .keyNotLiteral(property: name))
            return nil
        }
        if key.isEmpty {
            diagnostics.add(literal, .emptyKey(property: name), fixIt: .use(name), replacing: literal, with: name)
            return nil
        }
        let reservedPrefix = TelemetryEventMacro.reservedPrefix
        if key.hasPrefix(reservedPrefix) {
            let rest = String(key.dropFirst(reservedPrefix.count))
            let suggestion = rest.isEmpty || taken[rest] != nil ? name : rest
            diagnostics.add(
                literal,
                .reservedKey(key, property: name),
                fixIt: .use(suggestion),
                replacing: literal,
                with: suggestion
            )
            return nil
        }
        return key
    }

    /// A property without a type: with a literal initializer, the fix-it adds the literal's type.
    private static func diagnoseMissingType(
        _ binding: PatternBindingSyntax,
        pattern: IdentifierPatternSyntax,
        name: String,
        diagnostics: inout Diagnostics
    ) {
        let literalType: String?
        switch binding.initializer?.value.kind {
        case .integerLiteralExpr: literalType = "Int"
        case .floatLiteralExpr: literalType = "Double"
        case .stringLiteralExpr: literalType = "String"
        case .booleanLiteralExpr: literalType = "Bool"
        default: literalType = nil
        }
        guard let literalType else {
            diagnostics.add(pattern, .missingType(property: name))
            return
        }
        let annotated =
            binding
            .with(\.pattern, PatternSyntax(pattern.with(\.trailingTrivia, [])))
            .with(
                \.typeAnnotation,
                TypeAnnotationSyntax(
                    colon: .colonToken(trailingTrivia: .space),
                    type: IdentifierTypeSyntax(name: .identifier(literalType), trailingTrivia: .space)
                )
            )
        diagnostics.add(
            pattern,
            .missingType(property: name),
            fixIt: .addType(literalType),
            changes: [.replace(oldNode: Syntax(binding), newNode: Syntax(annotated))]
        )
    }
}

/// What the macro knows of a parameter's type from its spelling.
struct TypeShape {
    /// The type without its optional wrapper, as written.
    let valueType: String
    let isOptional: Bool

    var isDouble: Bool { valueType == "Double" || valueType == "Swift.Double" }

    /// The shape of `type`, or nil after diagnosing a spelling no supported type has (arrays,
    /// dictionaries, tuples, closures, existentials, nested optionals).
    static func classify(_ type: TypeSyntax, property: String, diagnostics: inout Diagnostics) -> TypeShape? {
        if let implicitlyUnwrapped = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
            let optional = OptionalTypeSyntax(
                leadingTrivia: implicitlyUnwrapped.leadingTrivia,
                wrappedType: implicitlyUnwrapped.wrappedType,
                trailingTrivia: implicitlyUnwrapped.trailingTrivia
            )
            diagnostics.add(
                type,
                .implicitlyUnwrapped(property: property),
                fixIt: .makeOptional,
                changes: [.replace(oldNode: Syntax(type), newNode: Syntax(optional))]
            )
            return nil
        }
        if let wrapped = optionalWrapped(type) {
            if optionalWrapped(wrapped) != nil {
                return unsupported(type, property: property, reason: "an optional of an optional", &diagnostics)
            }
            guard let inner = classifyWrapped(wrapped, property: property, diagnostics: &diagnostics) else {
                return nil
            }
            return TypeShape(valueType: inner, isOptional: true)
        }
        guard let inner = classifyWrapped(type, property: property, diagnostics: &diagnostics) else { return nil }
        return TypeShape(valueType: inner, isOptional: false)
    }

    private static func optionalWrapped(_ type: TypeSyntax) -> TypeSyntax? {
        if let optional = type.as(OptionalTypeSyntax.self) { return optional.wrappedType }
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == "Optional",
            let arguments = identifier.genericArgumentClause?.arguments, arguments.count == 1,
            case .type(let wrapped) = arguments.first?.argument
        {
            return wrapped
        }
        return nil
    }

    private static func classifyWrapped(
        _ type: TypeSyntax,
        property: String,
        diagnostics: inout Diagnostics
    )
        -> String?
    {
        let reason: String?
        switch type.as(TypeSyntaxEnum.self) {
        case .arrayType: reason = "an array"
        case .dictionaryType: reason = "a dictionary"
        case .tupleType(let tuple):
            if tuple.elements.count == 1, let only = tuple.elements.first, only.firstName == nil {
                return classifyWrapped(only.type, property: property, diagnostics: &diagnostics)
            }
            reason = "a tuple"
        case .functionType, .attributedType: reason = "a closure"
        case .someOrAnyType: reason = "an opaque or existential type"
        case .compositionType: reason = "a protocol composition"
        case .metatypeType: reason = "a metatype"
        case .optionalType, .implicitlyUnwrappedOptionalType: reason = "an optional of an optional"
        case .identifierType(let identifier)
        where ["Array", "Dictionary", "Set"].contains(identifier.name.text) && identifier.genericArgumentClause != nil:
            reason = "a collection"
        default: reason = nil
        }
        if let reason {
            _ = unsupported(type, property: property, reason: reason, &diagnostics)
            return nil
        }
        return type.trimmedDescription
    }

    private static func unsupported(
        _ type: TypeSyntax,
        property: String,
        reason: String,
        _ diagnostics: inout Diagnostics
    ) -> TypeShape? {
        diagnostics.add(type, .unsupportedType(property: property, type: type.trimmedDescription, reason: reason))
        return nil
    }
}

extension PatternBindingListSyntax {
    /// Each binding with its type; in `let a, b: Int`, `a` takes `b`'s type, as Swift reads it.
    func withTypes() -> [(PatternBindingSyntax, TypeSyntax?)] {
        var result: [(PatternBindingSyntax, TypeSyntax?)] = []
        var following: TypeSyntax?
        for binding in reversed() {
            if let annotated = binding.typeAnnotation?.type {
                following = annotated
            } else if binding.initializer != nil || binding.accessorBlock != nil {
                following = nil
            }
            result.insert((binding, binding.typeAnnotation?.type ?? following), at: 0)
        }
        return result
    }
}

extension AccessorBlockSyntax {
    /// A getter (`{ ... }` or `get`); `willSet`/`didSet` observe a stored property.
    var isComputed: Bool {
        switch accessors {
        case .getter: return true
        case .accessors(let list):
            return list.contains {
                [.keyword(.get), .keyword(._read), .keyword(.unsafeAddress)].contains($0.accessorSpecifier.tokenKind)
            }
        }
    }
}

extension AttributeListSyntax {
    /// The attribute spelled `@name` or `@Module.name`.
    func attribute(named name: String) -> AttributeSyntax? {
        for element in self {
            guard case .attribute(let attribute) = element else { continue }
            let spelled = attribute.attributeName.trimmedDescription
            if spelled == name || spelled.hasSuffix(".\(name)") { return attribute }
        }
        return nil
    }
}

extension AttributeSyntax {
    /// The first argument, when it is a string literal.
    var stringArgument: StringLiteralExprSyntax? {
        guard case .argumentList(let arguments) = arguments else { return nil }
        return arguments.first?.expression.as(StringLiteralExprSyntax.self)
    }
}
#endif
