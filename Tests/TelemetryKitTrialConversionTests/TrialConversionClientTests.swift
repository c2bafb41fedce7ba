import TelemetryKit
import TelemetryKitTesting
import TelemetryKitTrialConversion
import Testing

/// Signals every event with a given name that reaches it, then passes it on.
struct Tap: EventProcessor {
    let name: String
    let seen: AsyncStream<EventInput>.Continuation

    func process(
        _ input: EventInput,
        context: EventContext,
        next: nonisolated(nonsending) @Sendable (EventInput, EventContext) async throws -> Event
    ) async throws -> Event {
        let event = try await next(input, context)
        if input.name == name { seen.yield(input) }
        return event
    }
}

struct TrialConversionClientTests {
    @Test func conversionEventRunsThroughTheClientPipelineToTheDestination() async throws {
        let (updates, feed) = AsyncStream.makeStream(of: TrialConversionProcessor.TransactionUpdate.self)
        let (seen, tapContinuation) = AsyncStream.makeStream(of: EventInput.self)
        let processor = TrialConversionProcessor(transactions: { updates })
        let harness = await TestHarness.make(processors: [
            processor, Tap(name: TrialConversionProcessor.Keys.convertedFromTrial, seen: tapContinuation),
        ])

        feed.yield(.init(transactionID: "1", originalTransactionID: "1", productID: "pro", isFreeTrial: true))
        feed.yield(.init(transactionID: "2", originalTransactionID: "1", productID: "pro", isFreeTrial: false))
        var iterator = seen.makeAsyncIterator()
        _ = try #require(await iterator.next())
        await harness.client.flush()

        let delivered = harness.spy.deliveredEvents
        #expect(delivered.map(\.type) == ["TelemetryDeck.Purchase.convertedFromTrial"])
        #expect(delivered.first?.payload["TelemetryDeck.Purchase.productID"] == .string("pro"))
        await harness.client.shutdown()
    }
}
