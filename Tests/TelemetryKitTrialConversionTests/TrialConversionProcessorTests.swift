import Foundation
import TelemetryKit
import TelemetryKitSupport
import TelemetryKitTesting
import TelemetryKitTrialConversion
import Testing

typealias Update = TrialConversionProcessor.TransactionUpdate

private func trial(_ original: String, product: String = "pro.monthly") -> Update {
    Update(transactionID: original, originalTransactionID: original, productID: product, isFreeTrial: true)
}

private func paid(_ id: String, original: String, product: String = "pro.monthly", revoked: Bool = false) -> Update {
    Update(
        transactionID: id,
        originalTransactionID: original,
        productID: product,
        isFreeTrial: false,
        isRevoked: revoked
    )
}

/// A processor fed from a stream the test controls.
private struct Harness {
    let processor: TrialConversionProcessor
    let feed: AsyncStream<Update>.Continuation

    init() {
        let (stream, feed) = AsyncStream.makeStream(of: Update.self)
        let handOut = Locked<AsyncStream<Update>?>(stream)
        processor = TrialConversionProcessor(transactions: {
            handOut.withLock { stream in
                defer { stream = nil }
                return stream ?? AsyncStream { $0.finish() }
            }
        })
        self.feed = feed
    }

    func send(_ updates: Update...) {
        for update in updates { feed.yield(update) }
    }
}

private func nextEmission(_ iterator: inout AsyncStream<EventInput>.Iterator) async throws -> EventInput {
    try #require(await iterator.next())
}

struct TrialConversionProcessorTests {
    @Test func keysAreTheSpecNames() {
        #expect(TrialConversionProcessor.Keys.convertedFromTrial == "TelemetryDeck.Purchase.convertedFromTrial")
        #expect(TrialConversionProcessor.Keys.productID == "TelemetryDeck.Purchase.productID")
    }

    @Test func trialFollowedByPaymentEmitsOneConversion() async throws {
        let harness = Harness()
        let emitter = RecordingEmitter()
        var emissions = emitter.emissions.makeAsyncIterator()
        #expect(harness.processor.isListening)
        await harness.processor.start(storage: InMemoryProcessorStorage(), logger: SilentLogger(), emitter: emitter)

        harness.send(trial("1000"), paid("1001", original: "1000"))
        let event = try await nextEmission(&emissions)
        #expect(event.name == "TelemetryDeck.Purchase.convertedFromTrial")
        #expect(event.parameters == ["TelemetryDeck.Purchase.productID": "pro.monthly"])
        #expect(event.skipsReservedPrefixValidation)

        // Renewals after the conversion are not conversions; a second subscription's is.
        harness.send(
            paid("1002", original: "1000"),
            trial("2000", product: "pro.yearly"),
            paid("2001", original: "2000", product: "pro.yearly")
        )
        let second = try await nextEmission(&emissions)
        #expect(second.parameters == ["TelemetryDeck.Purchase.productID": "pro.yearly"])
        #expect(emitter.sent.count == 2)
        await harness.processor.stop()
    }

    @Test func paymentsWithoutTrialAndRevokedTransactionsAreNoConversion() async throws {
        let harness = Harness()
        let emitter = RecordingEmitter()
        var emissions = emitter.emissions.makeAsyncIterator()
        await harness.processor.start(storage: InMemoryProcessorStorage(), logger: SilentLogger(), emitter: emitter)

        harness.send(
            paid("500", original: "500", product: "plain"),  // bought without a trial
            paid("501", original: "500", product: "plain"),  // its renewal
            trial("600", product: "refunded-trial"),
            paid("600", original: "600", product: "refunded-trial", revoked: true),  // trial revoked
            paid("601", original: "600", product: "refunded-trial"),  // later payment: trial is gone
            trial("700", product: "refunded-payment"),
            paid("701", original: "700", product: "refunded-payment", revoked: true),  // first payment refunded
            trial("800", product: "marker"),
            paid("801", original: "800", product: "marker")
        )
        // Updates are handled in order, so the first emission is the marker's only if none
        // of the updates before it emitted.
        let first = try await nextEmission(&emissions)
        #expect(first.parameters == ["TelemetryDeck.Purchase.productID": "marker"])
        #expect(emitter.sent.count == 1)
        await harness.processor.stop()
    }

    @Test func trialsSurviveARestartThroughStorage() async throws {
        let storage = InMemoryProcessorStorage()
        let firstRun = Harness()
        let firstEmitter = RecordingEmitter()
        var firstEmissions = firstEmitter.emissions.makeAsyncIterator()
        await firstRun.processor.start(storage: storage, logger: SilentLogger(), emitter: firstEmitter)
        firstRun.send(
            trial("1000", product: "kept"),
            trial("9000", product: "marker"),
            paid("9001", original: "9000", product: "marker")
        )
        _ = try await nextEmission(&firstEmissions)
        await firstRun.processor.stop()

        let stored = try #require(await storage.data(forKey: TrialConversionProcessor.Keys.activeTrialsStorage))
        #expect(try JSONDecoder().decode([String].self, from: stored) == ["1000"])

        let secondRun = Harness()
        let secondEmitter = RecordingEmitter()
        var secondEmissions = secondEmitter.emissions.makeAsyncIterator()
        await secondRun.processor.start(storage: storage, logger: SilentLogger(), emitter: secondEmitter)
        secondRun.send(paid("1001", original: "1000", product: "kept"))
        let event = try await nextEmission(&secondEmissions)
        #expect(event.parameters == ["TelemetryDeck.Purchase.productID": "kept"])
        await secondRun.processor.stop()
    }

    @Test func garbageInStorageIsLoggedAndTrackingStartsFresh() async throws {
        let storage = InMemoryProcessorStorage()
        await storage.set(Data([0xDE, 0xAD, 0xBE, 0xEF]), forKey: TrialConversionProcessor.Keys.activeTrialsStorage)
        let logger = RecordingLogger()
        let harness = Harness()
        let emitter = RecordingEmitter()
        var emissions = emitter.emissions.makeAsyncIterator()
        await harness.processor.start(storage: storage, logger: logger, emitter: emitter)
        #expect(logger.warnings.count == 1)
        #expect(logger.warnings.first?.contains("unreadable") == true)

        harness.send(trial("1"), paid("2", original: "1"))
        #expect(try await nextEmission(&emissions).name == TrialConversionProcessor.Keys.convertedFromTrial)
        await harness.processor.stop()
        let stored = try #require(await storage.data(forKey: TrialConversionProcessor.Keys.activeTrialsStorage))
        #expect(try JSONDecoder().decode([String].self, from: stored) == [])
    }

    @Test func stopEndsListening() async throws {
        let harness = Harness()
        await harness.processor.start(
            storage: InMemoryProcessorStorage(),
            logger: SilentLogger(),
            emitter: RecordingEmitter()
        )
        await harness.processor.stop()
        // The listener is gone, so the stream is terminated and takes nothing more.
        let result = harness.feed.yield(trial("1"))
        guard case .terminated = result else {
            Issue.record("stream still open after stop: \(result)")
            return
        }
    }

    @Test func eventsPassThroughUnchanged() async throws {
        let harness = Harness()
        let pipeline = ProcessorPipeline(processors: [harness.processor], finalizer: EventFinalizer(appID: "APP"))
        let event = try await pipeline.process(EventInput("Screen.shown", parameters: ["screen": "home"]))
        #expect(event.payload == ["screen": .string("home")])
    }
}

#if !canImport(StoreKit)
struct NoStoreKitTrialConversionTests {
    @Test func isANoOpWithoutStoreKit() async throws {
        let processor = TrialConversionProcessor()
        #expect(processor.isListening == false)
        let storage = InMemoryProcessorStorage()
        let emitter = RecordingEmitter()
        await processor.start(storage: storage, logger: SilentLogger(), emitter: emitter)

        let pipeline = ProcessorPipeline(processors: [processor], finalizer: EventFinalizer(appID: "APP"))
        let event = try await pipeline.process(EventInput("Purchase.completed", parameters: ["plan": "pro", "n": 2]))
        #expect(event.type == "Purchase.completed")
        #expect(event.payload == ["plan": .string("pro"), "n": .int(2)])

        await processor.stop()
        #expect(emitter.sent.isEmpty)
        #expect(await storage.data(forKey: TrialConversionProcessor.Keys.activeTrialsStorage) == nil)
    }
}
#endif
