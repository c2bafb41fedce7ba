#if TypedEvents
import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin: the macros `TelemetryKitTypedEvents` declares.
@main
struct TelemetryKitTypedEventsPlugin: CompilerPlugin {
    let providingMacros: [any Macro.Type] = [
        TelemetryEventMacro.self, EventParameterMacro.self, EventFloatValueMacro.self, EventNameMacro.self,
    ]
}
#else
/// The entry point when the package is built without the TypedEvents trait: the macros need
/// swift-syntax, which only the trait fetches, and nothing uses this target without it.
@main
enum TypedEventsTraitMissing {
    static func main() {
        print("TelemetryKitTypedEventsMacros needs the TypedEvents trait: swift build --traits TypedEvents")
    }
}
#endif
