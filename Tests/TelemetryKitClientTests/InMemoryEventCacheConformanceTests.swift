import TelemetryKit
import TelemetryKitTesting
import Testing

struct InMemoryEventCacheConformanceTests {
    let conformance = EventCacheConformance { limit in
        EventCacheConformance.Subject(InMemoryEventCache(cacheLimit: limit))
    }

    @Test(arguments: EventCacheConformance.Check.allCases.filter { !$0.requiresReopen })
    func conformance(_ check: EventCacheConformance.Check) async throws {
        try await conformance.run(check)
    }

    @Test func reopenCheckWithoutReopenClosureFails() async throws {
        await #expect(throws: EventCacheConformance.Failure.self) {
            try await conformance.run(.reopenPersistence)
        }
    }
}
