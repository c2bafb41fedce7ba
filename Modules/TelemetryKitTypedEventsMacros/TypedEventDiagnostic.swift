#if TypedEvents
import SwiftDiagnostics

/// Every error the typed-event macros report, with the message the compiler shows.
///
/// Each names what is wrong and what to write instead; where one edit fixes it, the
/// diagnostic carries a ``TypedEventFixIt``.
enum TypedEventDiagnostic: DiagnosticMessage {
    case notStructOrEnum(kind: String)
    case nameNotLiteral
    case emptyName
    case reservedName(String)
    case keyNotLiteral(property: String)
    case emptyKey(property: String)
    case reservedKey(String, property: String)
    case duplicateKey(String, property: String, firstProperty: String)
    case duplicateEventName(String, caseName: String, firstCase: String)
    case missingType(property: String)
    case unsupportedType(property: String, type: String, reason: String)
    case implicitlyUnwrapped(property: String)
    case floatValueNotDouble(property: String, type: String)
    case secondFloatValue(property: String, firstProperty: String)
    case floatValueWithKey(property: String)
    case reservedMemberName(property: String)
    case lazyProperty(property: String)
    case unlabelledAssociatedValue(caseName: String, position: Int)
    case noCases(enumName: String)
    case markerMisplaced(attribute: String, expected: String)

    var message: String {
        switch self {
        case .notStructOrEnum(let kind):
            return "@TelemetryEvent applies to a struct or an enum, not to \(kind): an event is a value"
        case .nameNotLiteral:
            return "the event name must be a string literal, so that the tracking plan knows it at compile time"
        case .emptyName:
            return "the event name is empty"
        case .reservedName(let name):
            return "'\(name)' is in the reserved 'TelemetryDeck.' namespace, which belongs to the SDK's own events"
        case .keyNotLiteral(let property):
            return
                "the key of '\(property)' must be a string literal, so that the tracking plan knows it at compile time"
        case .emptyKey(let property):
            return "the parameter key of '\(property)' is empty"
        case .reservedKey(let key, let property):
            return "the key '\(key)' of '\(property)' is in the reserved 'TelemetryDeck.' namespace, "
                + "which belongs to the SDK's metadata"
        case .duplicateKey(let key, let property, let firstProperty):
            return
                "'\(property)' and '\(firstProperty)' are both sent as the key '\(key)'; one would overwrite the other"
        case .duplicateEventName(let name, let caseName, let firstCase):
            return "the cases '\(caseName)' and '\(firstCase)' both send the event '\(name)'"
        case .missingType(let property):
            return "'\(property)' needs an explicit type: the macro reads parameter types from the declaration"
        case .unsupportedType(let property, let type, let reason):
            return "'\(property)' has the type '\(type)', which an event parameter cannot have (\(reason)); "
                + "use String, Int, Double, Bool, Date, UUID, URL, or an enum with String or Int raw values"
        case .implicitlyUnwrapped(let property):
            return "'\(property)' is implicitly unwrapped; an event parameter is either optional (left out when nil) "
                + "or not"
        case .floatValueNotDouble(let property, let type):
            return "the float value '\(property)' has the type '\(type)'; an event's float value is a Double"
        case .secondFloatValue(let property, let firstProperty):
            return "'\(property)' is a second @EventFloatValue ('\(firstProperty)' is the first); "
                + "an event has one float value"
        case .floatValueWithKey(let property):
            return "'\(property)' is the float value, which is sent outside the parameters and has no key"
        case .reservedMemberName(let property):
            return "a property named '\(property)' would replace TypedEvent's own '\(property)'; rename it "
                + "and keep its key with @EventParameter(\"\(property)\")"
        case .lazyProperty(let property):
            return "'\(property)' is lazy, so reading it would mutate the event; make it a stored or computed property"
        case .unlabelledAssociatedValue(let caseName, let position):
            return "associated value \(position) of '\(caseName)' has no label; the label is the parameter key"
        case .noCases(let enumName):
            return "'\(enumName)' has no cases, so it sends no events"
        case .markerMisplaced(let attribute, let expected):
            return "@\(attribute) applies to \(expected) of a @TelemetryEvent type"
        }
    }

    var diagnosticID: MessageID {
        let id: String
        switch self {
        case .notStructOrEnum: id = "notStructOrEnum"
        case .nameNotLiteral: id = "nameNotLiteral"
        case .emptyName: id = "emptyName"
        case .reservedName: id = "reservedName"
        case .keyNotLiteral: id = "keyNotLiteral"
        case .emptyKey: id = "emptyKey"
        case .reservedKey: id = "reservedKey"
        case .duplicateKey: id = "duplicateKey"
        case .duplicateEventName: id = "duplicateEventName"
        case .missingType: id = "missingType"
        case .unsupportedType: id = "unsupportedType"
        case .implicitlyUnwrapped: id = "implicitlyUnwrapped"
        case .floatValueNotDouble: id = "floatValueNotDouble"
        case .secondFloatValue: id = "secondFloatValue"
        case .floatValueWithKey: id = "floatValueWithKey"
        case .reservedMemberName: id = "reservedMemberName"
        case .lazyProperty: id = "lazyProperty"
        case .unlabelledAssociatedValue: id = "unlabelledAssociatedValue"
        case .noCases: id = "noCases"
        case .markerMisplaced: id = "markerMisplaced"
        }
        return MessageID(domain: "TelemetryKitTypedEvents", id: id)
    }

    var severity: DiagnosticSeverity { .error }
}

/// The one-edit repairs offered with ``TypedEventDiagnostic``s.
struct TypedEventFixIt: FixItMessage {
    let message: String
    var fixItID: MessageID { MessageID(domain: "TelemetryKitTypedEvents", id: message) }

    static func replaceKeyword(with keyword: String) -> Self {
        Self(message: "make it a \(keyword)")
    }

    static func use(_ literal: String) -> Self {
        Self(message: "use '\(literal)'")
    }

    static let makeOptional = Self(message: "make it optional")
    static func addType(_ type: String) -> Self {
        Self(message: "add ': \(type)'")
    }
}
#endif
