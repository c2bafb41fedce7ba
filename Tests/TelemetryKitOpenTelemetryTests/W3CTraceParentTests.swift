#if OpenTelemetry
import TelemetryKitOpenTelemetry
import Testing

@Suite("W3CTraceParent")
struct W3CTraceParentTests {
    @Test("a well-formed traceparent gives its ids and flags")
    func parses() throws {
        let parsed = try #require(W3CTraceParent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"))
        #expect(parsed.traceID == "4bf92f3577b34da6a3ce929d0e0e4736")
        #expect(parsed.spanID == "00f067aa0ba902b7")
        #expect(parsed.flags == 1)
        #expect(parsed.headerValue == "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
    }

    @Test(
        "malformed or all-zero values are refused",
        arguments: [
            "",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",
            "00-4bf92f3577b34da6a3ce929d0e0e473-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-extra",
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
            "00-4bf92f3577b34da6a3ce929d0e0e47zz-00f067aa0ba902b7-01",
        ]
    )
    func refuses(_ value: String) {
        #expect(W3CTraceParent(value) == nil)
    }

    @Test("a later version is read by its first four fields")
    func laterVersion() throws {
        let parsed = try #require(W3CTraceParent("01-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00-future"))
        #expect(parsed.flags == 0)
        #expect(parsed.spanID == "00f067aa0ba902b7")
    }
}
#endif
