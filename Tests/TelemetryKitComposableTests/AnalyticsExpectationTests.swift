import IssueReporting
import TelemetryKit
import TelemetryKitComposable
import TelemetryKitSupport
import Testing

/// The exhaustive test client: every mismatch fails the test through IssueReporting.
struct AnalyticsExpectationTests {
    /// Keeps the issues reported through IssueReporting instead of failing the test, so a
    /// test can check their exact messages and count.
    final class CapturingReporter: IssueReporter {
        private let storage = Locked([String]())

        func reportIssue(
            _ message: @autoclosure () -> String?,
            severity: IssueSeverity,
            fileID: StaticString,
            filePath: StaticString,
            line: UInt,
            column: UInt
        ) {
            let text = "\(severity == .warning ? "warning" : "error"): \(message() ?? "")"
            storage.withLock { $0.append(text) }
        }

        var issues: [String] { storage.withLock { $0 } }
    }

    private static func comment(of issue: Issue, contains text: String) -> Bool {
        issue.comments.contains { $0.rawValue.contains(text) }
    }

    @Test func passesWhenExactlyTheExpectedDataIsSent() {
        var client = AnalyticsClient.test
        client.expect(.event("ButtonTapped"), .screen(name: "Home"))
        client.expect(.userId("u-1"))
        let store = TestStore(initialState: ButtonFeature.State(), reducer: ButtonFeature(analyticsClient: client))

        store.send(.buttonTapped)
        client.send(.screen(name: "Home"))
        client.send(.userId("u-1"))

        #expect(client.testExpectations?.pending == [])
        #expect(client.testExpectations?.received == [.event("ButtonTapped"), .screen(name: "Home"), .userId("u-1")])
        client.verifyExpectations()
    }

    @Test func unexpectedDataFailsTheTest() {
        withKnownIssue {
            let client = AnalyticsClient.test
            client.send("ButtonTapped")
        } matching: { issue in
            Self.comment(of: issue, contains: "Unexpected analytics sent: event(ButtonTapped)")
        }
    }

    @Test func dataBeyondTheExpectedFailsTheTest() {
        withKnownIssue {
            let client = AnalyticsClient.test.expecting("A")
            client.send("A")
            client.send("B")
        } matching: { issue in
            Self.comment(of: issue, contains: "Unexpected analytics sent: event(B). No more analytics were expected.")
        }
    }

    @Test func missingDataFailsTheTestAtVerify() {
        withKnownIssue {
            var client = AnalyticsClient.test
            client.expect(.event("ButtonTapped"))
            client.verifyExpectations()
        } matching: { issue in
            Self.comment(of: issue, contains: "Expected analytics were not sent: event(ButtonTapped)")
        }
    }

    @Test func missingDataFailsTheTestWhenTheClientIsReleased() {
        withKnownIssue {
            let store = TestStore(
                initialState: ButtonFeature.State(),
                reducer: ButtonFeature(analyticsClient: AnalyticsClient.test.expecting(.event("ButtonTapped")))
            )
            // The store is released here without sending `.buttonTapped`.
            _ = store.state
        } matching: { issue in
            Self.comment(of: issue, contains: "Expected analytics were not sent: event(ButtonTapped)")
        }
    }

    @Test func differentDataFailsTheTest() {
        withKnownIssue {
            var client = AnalyticsClient.test
            client.expect(.event("ButtonTapped"))
            let store = TestStore(initialState: ButtonFeature.State(), reducer: ButtonFeature(analyticsClient: client))
            store.send(.downloadFinished(bytes: 1))
        } matching: { issue in
            Self.comment(
                of: issue,
                contains:
                    "Analytics sent: event(DownloadFinished, [bytes: 1, number: 1]), but expected: event(ButtonTapped)."
            )
        }
    }

    @Test func differentPropertiesFailTheTest() {
        withKnownIssue {
            let client = AnalyticsClient.test.expecting(.event("Saved", properties: ["kind": "draft"]))
            client.send(.event("Saved", properties: ["kind": "final"]))
        } matching: { issue in
            Self.comment(of: issue, contains: "but expected: event(Saved, [kind: draft])")
        }
    }

    @Test func outOfOrderDataFailsTheTest() {
        withKnownIssue {
            let client = AnalyticsClient.test.expecting("A", "B")
            client.send("B")
            client.send("A")
        } matching: { issue in
            Self.comment(
                of: issue,
                contains: "Analytics sent out of order: event(B) arrived while event(A) was expected first."
            )
        }
    }

    @Test func eachMismatchIsReportedExactlyOnce() {
        let reporter = CapturingReporter()
        withIssueReporters([reporter]) {
            let client = AnalyticsClient.test.expecting("A", "B", "C")
            client.send("A")
            client.send("X")  // different: uses up B
            client.send("C")
            client.send("D")  // unexpected
            let missing = AnalyticsClient.test.expecting(.screen(name: "Home"))
            missing.verifyExpectations()
            missing.verifyExpectations()  // already reported: nothing more
        }
        #expect(
            reporter.issues == [
                "error: Analytics sent: event(X), but expected: event(B).",
                "error: Unexpected analytics sent: event(D). No more analytics were expected.",
                "error: Expected analytics were not sent: screen(Home).",
            ]
        )
    }

    @Test func expectingOnACopyLeavesTheOriginalAsItWas() {
        let reporter = CapturingReporter()
        withIssueReporters([reporter]) {
            let original = AnalyticsClient.test
            var copy = original
            copy.expect("A")
            copy.send("A")
            #expect(original.testExpectations?.pending == [])
            #expect(original.testExpectations?.received == [])
            // Adding to a test client hands its pending expectations to the result, once.
            var chained = AnalyticsClient.test.expecting("B")
            chained.expect("C")
            #expect(chained.testExpectations?.pending == ["B", "C"])
            chained.send("B")
            chained.send("C")
        }
        #expect(reporter.issues == [])
    }

    @Test func expectTurnsAnyClientIntoATestClient() {
        let recorder = AnalyticsRecorder()
        var client = recorder.client
        #expect(client.testExpectations == nil)
        client.verifyExpectations()  // not a test client: nothing to check

        client.expect("A")
        client.send("A")

        #expect(recorder.received == [])
        #expect(client.testExpectations?.received == ["A"])
    }
}
