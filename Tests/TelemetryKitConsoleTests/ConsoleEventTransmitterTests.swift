import TelemetryKit
import TelemetryKitConsole
import TelemetryKitSupport
import Testing

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

struct ConsoleEventTransmitterTests {
    /// 2024-06-15T14:00:00.123Z
    private let date = Date(timeIntervalSince1970: 1_718_460_000.123)

    private func event(
        type: String = "Screen.shown",
        payload: [String: PayloadValue],
        floatValue: Double? = nil,
        isTestMode: Bool = false
    ) -> Event {
        Event(
            appID: "APP",
            type: type,
            clientUser: "abc",
            receivedAt: date,
            payload: payload,
            floatValue: floatValue,
            isTestMode: isTestMode
        )
    }

    @Test func printsNameAndAppParametersSortedAndCountsSDKParameters() {
        let console = ConsoleEventTransmitter()
        let line = console.line(
            for: event(
                payload: [
                    "screen": "home", "count": 3, "ratio": 0.5, "isPro": true,
                    "TelemetryDeck.Device.platform": "Linux", "TelemetryDeck.SDK.name": "TelemetryKit",
                ]
            )
        )
        #expect(
            line
                == "2024-06-15T14:00:00.123Z Screen.shown count=3 isPro=true ratio=0.5 screen=home (+2 TelemetryDeck.*)"
        )
    }

    @Test func showsSDKParametersWhenAsked() {
        let console = ConsoleEventTransmitter(showsSDKParameters: true)
        let line = console.line(for: event(payload: ["TelemetryDeck.SDK.name": "TelemetryKit", "a": 1]))
        #expect(line == "2024-06-15T14:00:00.123Z Screen.shown TelemetryDeck.SDK.name=TelemetryKit a=1")
    }

    @Test func marksFloatValueAndTestMode() {
        let line = ConsoleEventTransmitter().line(for: event(payload: [:], floatValue: 2.5, isTestMode: true))
        #expect(line == "2024-06-15T14:00:00.123Z Screen.shown floatValue=2.5 [test]")
    }

    @Test func quotesValuesWithSpacesAndKeepsEveryEventOnOneLine() {
        let line = ConsoleEventTransmitter().line(
            for: event(
                type: "Multi\nline",
                payload: ["note": "two words", "quote": #"say "hi""#, "break": "a\nb", "empty": ""]
            )
        )
        #expect(!line.contains("\n"))
        #expect(
            line
                == #"2024-06-15T14:00:00.123Z Multi\nline break=a\nb empty="" note="two words" quote="say \"hi\"""#
        )
    }

    @Test func writesOneLinePerEventToTheGivenOutputAndDelivers() async {
        let written = Locked([String]())
        let console = ConsoleEventTransmitter(output: .text { text in written.withLock { $0.append(text) } })
        let outcome = await console.transmit([
            event(type: "First", payload: ["n": 1]),
            event(type: "Second", payload: ["n": 2]),
        ])
        #expect(outcome == .delivered)
        #expect(
            written.current == [
                "2024-06-15T14:00:00.123Z First n=1\n2024-06-15T14:00:00.123Z Second n=2\n"
            ]
        )
    }

    @Test func deliversAnEmptyBatchWithoutWriting() async {
        let written = Locked(0)
        let console = ConsoleEventTransmitter(output: .text { _ in written.withLock { $0 += 1 } })
        #expect(await console.transmit([]) == .delivered)
        #expect(written.current == 0)
    }
}
