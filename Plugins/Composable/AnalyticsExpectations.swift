import IssueReporting
import TelemetryKit
import TelemetryKitSupport

/// The analytics a test client expects, checked in order as data arrives.
///
/// Created by ``AnalyticsClient/test`` and filled by
/// ``AnalyticsClient/expect(_:fileID:filePath:line:column:)``. Every mismatch is reported
/// through IssueReporting, which fails the running test under Swift Testing and XCTest alike:
/// - data sent when nothing more is expected: "unexpected";
/// - data that differs from the next expected value: "different" (the expected value is used
///   up, so one wrong send is one failure);
/// - data that matches a later expectation: "out of order" (that expectation is used up);
/// - expectations never met: "missing", reported by ``verify(fileID:filePath:line:column:)``
///   or, if nobody called it, when the last copy of the client is released.
public final class AnalyticsExpectations: Sendable {
    private struct Expected: Sendable {
        var data: AnalyticsData
        var location: SourceLocation
    }

    struct SourceLocation: Sendable {
        var fileID: StaticString
        var filePath: StaticString
        var line: UInt
        var column: UInt
    }

    private struct State: Sendable {
        var pending: [Expected] = []
        var received: [AnalyticsData] = []
        /// Where the last expectation was added: unexpected data is reported there.
        var lastLocation: SourceLocation?
    }

    private enum Outcome {
        case matched
        case unexpected(SourceLocation?)
        case different(expected: Expected)
        case outOfOrder(skipped: Expected)
    }

    private let state: Locked<State>

    init() {
        state = Locked(State())
    }

    /// Creates expectations that take over what `other` still expects; `other` keeps its
    /// history but expects nothing more, so a missing value is reported once, not by both.
    init(takingOver other: AnalyticsExpectations) {
        let (pending, lastLocation) = other.state.withLock { state in
            defer { state.pending.removeAll() }
            return (state.pending, state.lastLocation)
        }
        state = Locked(State(pending: pending, received: [], lastLocation: lastLocation))
    }

    /// Adds `data` to the end of the expected sequence.
    func expect(_ data: [AnalyticsData], at location: SourceLocation) {
        state.withLock { state in
            state.pending.append(contentsOf: data.map { Expected(data: $0, location: location) })
            state.lastLocation = location
        }
    }

    /// Checks one piece of sent data against the expectations.
    func receive(_ data: AnalyticsData) {
        let outcome = state.withLock { state -> Outcome in
            state.received.append(data)
            guard let next = state.pending.first else { return .unexpected(state.lastLocation) }
            if next.data == data {
                state.pending.removeFirst()
                return .matched
            }
            if let index = state.pending.firstIndex(where: { $0.data == data }) {
                state.pending.remove(at: index)
                return .outOfOrder(skipped: next)
            }
            state.pending.removeFirst()
            return .different(expected: next)
        }
        // Reported outside the lock: the test framework may call back into arbitrary code.
        switch outcome {
        case .matched:
            break
        case .unexpected(let location?):
            report("Unexpected analytics sent: \(data). No more analytics were expected.", at: location)
        case .unexpected(nil):
            reportIssue("Unexpected analytics sent: \(data). This test client expects no analytics.")
        case .different(let expected):
            report("Analytics sent: \(data), but expected: \(expected.data).", at: expected.location)
        case .outOfOrder(let skipped):
            report(
                "Analytics sent out of order: \(data) arrived while \(skipped.data) was expected first.",
                at: skipped.location
            )
        }
    }

    /// The expectations not met yet, in order.
    public var pending: [AnalyticsData] {
        state.withLock { $0.pending.map(\.data) }
    }

    /// Everything sent to the test client so far, in order (expected or not).
    public var received: [AnalyticsData] {
        state.withLock { $0.received }
    }

    /// Reports every expectation not met yet as missing, then forgets them (so they are not
    /// reported again when the client is released).
    ///
    /// Call it at the point where all analytics must have been sent (e.g. the end of the test)
    /// for a failure at a fixed place; without it, missing data is reported when the last
    /// copy of the client is released.
    public func verify(
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        let missing = state.withLock { state -> [Expected] in
            defer { state.pending.removeAll() }
            return state.pending
        }
        for expected in missing {
            reportIssue(
                "Expected analytics were not sent: \(expected.data).",
                fileID: fileID,
                filePath: filePath,
                line: line,
                column: column
            )
        }
    }

    deinit {
        let missing = state.withLock { $0.pending }
        for expected in missing {
            report("Expected analytics were not sent: \(expected.data).", at: expected.location)
        }
    }

    private func report(_ message: String, at location: SourceLocation) {
        reportIssue(
            message,
            fileID: location.fileID,
            filePath: location.filePath,
            line: location.line,
            column: location.column
        )
    }
}

extension AnalyticsClient {
    /// A client for tests that fails the test on any data it did not expect.
    ///
    /// Add what a test expects with ``expect(_:fileID:filePath:line:column:)``. Each access
    /// makes a new client with its own expectations, so parallel tests never share one.
    public static var test: AnalyticsClient {
        AnalyticsClient(expectations: AnalyticsExpectations())
    }

    /// Makes this client expect `data`, in order, after what it already expects.
    ///
    /// The client then fails the running test (through IssueReporting) when it receives data
    /// it does not expect, data different from the next expected value, or data out of order,
    /// and when expected data was never sent: at ``verifyExpectations(fileID:filePath:line:column:)``,
    /// or else when the last copy of the client is released (for a client held by a test
    /// store or a `withDependencies` scope, the end of that scope). A client that was not a
    /// test client becomes one: its previous send function is no longer called.
    ///
    /// ```swift
    /// withDependencies {
    ///     $0.analyticsClient.expect(.event("ButtonTapped"))
    /// } operation: { ... }
    /// ```
    public mutating func expect(
        _ data: AnalyticsData...,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        addExpectations(data, at: .init(fileID: fileID, filePath: filePath, line: line, column: column))
    }

    /// Returns a copy of this client that expects `data` (see ``expect(_:fileID:filePath:line:column:)``).
    public func expecting(
        _ data: AnalyticsData...,
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) -> AnalyticsClient {
        var copy = self
        copy.addExpectations(data, at: .init(fileID: fileID, filePath: filePath, line: line, column: column))
        return copy
    }

    /// The result gets a new set of expectations (what this client still expected, then
    /// `data`) rather than adding to a shared one: swift-dependencies caches `testValue` for
    /// the whole test, and expectations added in one `withDependencies` scope must be checked
    /// when that scope ends, not whenever the cache goes away.
    private mutating func addExpectations(_ data: [AnalyticsData], at location: AnalyticsExpectations.SourceLocation) {
        let expectations = self.expectations.map(AnalyticsExpectations.init(takingOver:)) ?? AnalyticsExpectations()
        expectations.expect(data, at: location)
        self = AnalyticsClient(expectations: expectations)
    }

    /// The expectations of a test client (nil for other clients): what is still pending and
    /// what was received.
    public var testExpectations: AnalyticsExpectations? { expectations }

    /// Fails the running test for every expected piece of data that was not sent yet.
    ///
    /// A deterministic end point for exhaustive tests. Does nothing for a client that is not
    /// a test client.
    public func verifyExpectations(
        fileID: StaticString = #fileID,
        filePath: StaticString = #filePath,
        line: UInt = #line,
        column: UInt = #column
    ) {
        expectations?.verify(fileID: fileID, filePath: filePath, line: line, column: column)
    }
}
