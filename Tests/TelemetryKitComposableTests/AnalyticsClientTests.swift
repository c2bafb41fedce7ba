import TelemetryKitComposable
import Testing

struct AnalyticsClientTests {
    @Test func mergeSendsToEveryClientInOrder() {
        let order = LineRecorder()
        let first = AnalyticsClient { order.write("first: \($0)") }
        let second = AnalyticsClient { order.write("second: \($0)") }

        let merged = AnalyticsClient.merge(first, second)
        merged.send("A")
        merged(.screen(name: "Home"))

        #expect(order.lines == ["first: event(A)", "second: event(A)", "first: screen(Home)", "second: screen(Home)"])
    }

    @Test func mergeOfNothingSendsNowhere() {
        let recorder = AnalyticsRecorder()
        AnalyticsClient.merge([]).send("A")
        AnalyticsClient.merge(.noop, recorder.client).send("B")

        #expect(recorder.received == ["B"])
    }

    @Test func consoleLoggerFormat() {
        let lines = LineRecorder()
        let logger = AnalyticsClient.consoleLogger(write: lines.write)

        logger.send(.event(name: "ButtonTapped"))
        logger.send(.userProperty(name: "plan", value: "pro"))

        #expect(lines.lines == ["[Analytics] ✅ event(ButtonTapped)", "[Analytics] ✅ userProperty(plan: pro)"])
    }
}
