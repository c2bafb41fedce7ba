import Foundation
import TelemetryKitDefaults
import TelemetryKitTesting
import Testing

/// A typed event written by hand (what `@TelemetryEvent` writes; the macro's own tests are in
/// TelemetryKitTypedEventsTests, behind the TypedEvents trait).
private struct ScreenShown: TypedEvent {
    let screen: String
    let seconds: Double?

    static var eventSchemas: [EventSchema] {
        [
            EventSchema(
                name: "Screen.shown",
                parameters: [EventSchema.Parameter(key: "screen", type: .string)],
                floatValue: EventSchema.FloatValue(isOptional: true)
            )
        ]
    }
    var eventName: String { "Screen.shown" }
    var parameters: EventParameters { ["screen": screen] }
    var floatValue: Double? { seconds }
}

/// A typed event that is also a `String` enum: the facade sends it typed, not by raw value.
private enum Tab: String, TypedEvent {
    case home = "tab-home"

    static var eventSchemas: [EventSchema] { [EventSchema(name: "Tab.home")] }
    var eventName: String { "Tab.home" }
    var parameters: EventParameters { ["tab": "home"] }
}

extension FacadeTests {
    @Test func typedEventsGoThroughEveryFacadeCallSiteAsTheirUntypedTwins() async throws {
        await Telemetry.terminate()
        let spy = SpyEventTransmitter()
        try await initialize(processors: [], spy: spy)

        // From synchronous code (a button action), `event` is the fire-and-forget overload.
        let buttonAction = { Telemetry.event(ScreenShown(screen: "home", seconds: 1.5)) }
        buttonAction()
        await Telemetry.event(ScreenShown(screen: "settings", seconds: nil))
        Telemetry.signal(ScreenShown(screen: "about", seconds: 2), customUserID: "u-1")
        await Telemetry.send(ScreenShown(screen: "help", seconds: nil))
        Telemetry.signal("Screen.shown", parameters: ["screen": "home"], floatValue: 1.5)
        await Telemetry.event(Tab.home)
        let tapped = { Telemetry.event(Tab.home) }
        tapped()
        await Telemetry.flush()

        let tabs = spy.deliveredEvents.filter { $0.type != "Screen.shown" }
        #expect(tabs.map(\.type) == ["Tab.home", "Tab.home"])
        #expect(tabs.map(\.payload) == [["tab": .string("home")], ["tab": .string("home")]])
        let events = spy.deliveredEvents.filter { $0.type == "Screen.shown" }
        #expect(events.map(\.type) == Array(repeating: "Screen.shown", count: 5))
        #expect(
            events.map { $0.payload["screen"] }
                == ["home", "settings", "about", "help", "home"].map(PayloadValue.string)
        )
        #expect(events.map(\.floatValue) == [1.5, nil, 2, nil, 1.5])
        #expect(events[0].payload == events[4].payload)
        await Telemetry.terminate()
    }
}
