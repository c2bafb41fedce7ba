import TelemetryKitComposable
import Testing

struct AnalyticsDataTests {
    private enum PaymentError: Error, Equatable {
        case declined(code: Int)
    }

    /// Not `Equatable`: compared by type and description.
    private struct UploadError: Error, CustomStringConvertible {
        var file: String
        var description: String { "upload of \(file) failed" }
    }

    /// Not `Equatable`, with the same description as `UploadError`'s for `a.txt`.
    private struct OtherUploadError: Error, CustomStringConvertible {
        var description: String { "upload of a.txt failed" }
    }

    @Test func stringLiteralIsAnEventWithoutProperties() {
        let data: AnalyticsData = "ButtonTapped"
        #expect(data == .event(name: "ButtonTapped", properties: [:]))
    }

    @Test func eventShorthandMatchesTheLabelledCase() {
        #expect(AnalyticsData.event("ButtonTapped") == .event(name: "ButtonTapped"))
        #expect(
            AnalyticsData.event("Saved", properties: ["kind": "draft"])
                == .event(name: "Saved", properties: ["kind": "draft"])
        )
        #expect(AnalyticsData.event("Saved", properties: ["kind": "draft"]) != .event(name: "Saved"))
    }

    @Test func differentCasesAndValuesAreNotEqual() {
        #expect(AnalyticsData.screen(name: "Home") == .screen(name: "Home"))
        #expect(AnalyticsData.screen(name: "Home") != .screen(name: "Settings"))
        #expect(AnalyticsData.screen(name: "Home") != .event(name: "Home"))
        #expect(AnalyticsData.userId("u-1") == .userId("u-1"))
        #expect(AnalyticsData.userId("u-1") != .userId("u-2"))
        #expect(AnalyticsData.userProperty(name: "plan", value: "pro") == .userProperty(name: "plan", value: "pro"))
        #expect(AnalyticsData.userProperty(name: "plan", value: "pro") != .userProperty(name: "plan", value: "free"))
        #expect(AnalyticsData.userProperty(name: "plan", value: "pro") != .userProperty(name: "tier", value: "pro"))
    }

    @Test func equatableErrorsCompareWithTheirOwnEquality() {
        #expect(AnalyticsData.error(PaymentError.declined(code: 51)) == .error(PaymentError.declined(code: 51)))
        #expect(AnalyticsData.error(PaymentError.declined(code: 51)) != .error(PaymentError.declined(code: 05)))
    }

    @Test func otherErrorsCompareByTypeAndDescription() {
        #expect(AnalyticsData.error(UploadError(file: "a.txt")) == .error(UploadError(file: "a.txt")))
        #expect(AnalyticsData.error(UploadError(file: "a.txt")) != .error(UploadError(file: "b.txt")))
        // Same description, different type.
        #expect(AnalyticsData.error(UploadError(file: "a.txt")) != .error(OtherUploadError()))
        #expect(AnalyticsData.error(UploadError(file: "a.txt")) != .event(name: "upload of a.txt failed"))
    }

    @Test func descriptionIsOneReadableLine() {
        #expect(AnalyticsData.event("Saved").description == "event(Saved)")
        #expect(
            AnalyticsData.event("Saved", properties: ["z": "1", "a": "2"]).description == "event(Saved, [a: 2, z: 1])"
        )
        #expect(AnalyticsData.screen(name: "Home").description == "screen(Home)")
        #expect(AnalyticsData.userId("u-1").description == "userId(u-1)")
        #expect(AnalyticsData.userProperty(name: "plan", value: "pro").description == "userProperty(plan: pro)")
        #expect(
            AnalyticsData.error(UploadError(file: "a.txt")).description
                == "error(TelemetryKitComposableTests.AnalyticsDataTests.UploadError: upload of a.txt failed)"
        )
    }
}
