import Foundation
import TelemetryKit
import TelemetryKitLocale
import TelemetryKitTesting
import Testing

struct LocaleClientTests {
    @Test func everyEventCarriesTheResolvedValues() async throws {
        let processor = LocaleProcessor(
            locale: Locale(identifier: "en_US"),
            environment: ["LANG": "en_US.UTF-8"],
            preferredLanguages: ["en-US"]
        )
        let harness = await TestHarness.make(processors: [processor])
        await harness.client.send(EventInput("a"))
        await harness.client.send(EventInput("b"))
        await harness.client.flush()

        let events = harness.spy.deliveredEvents
        #expect(events.count == 2)
        for event in events {
            #expect(event.payload[LocaleProcessor.Keys.locale] == .string("en_US"))
            #expect(event.payload[LocaleProcessor.Keys.language] == .string("en"))
            #expect(event.payload[LocaleProcessor.Keys.preferredLanguage] == .string("en"))
            #expect(event.payload[LocaleProcessor.Keys.region] == .string("US"))
        }
        await harness.client.shutdown()
    }
}
