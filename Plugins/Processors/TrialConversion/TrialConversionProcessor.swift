public import TelemetryKit
import TelemetryKitSupport

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Sends `TelemetryDeck.Purchase.convertedFromTrial` when a free trial turns into a paid
/// subscription.
///
/// **Apple platforms with StoreKit 2** (iOS 15, macOS 12, tvOS 15, watchOS 8, visionOS 1 and
/// later): `start` begins listening to StoreKit's `Transaction.currentEntitlements` (trials
/// that already run) and `Transaction.updates`. A verified auto-renewable transaction bought
/// with a free-trial offer marks its subscription (by original transaction ID) as in trial;
/// the next paid, unrevoked transaction of that subscription sends the event once, with the
/// product ID under ``Keys/productID``. Trials in progress are kept in `ProcessorStorage`, so
/// a conversion that arrives in a later launch still counts. The processor never finishes
/// transactions; that stays the app's job. `stop` ends the listening.
///
/// **Linux and every platform without StoreKit:** a no-op. It adds nothing to events,
/// listens to nothing and sends nothing (``isListening`` is false).
///
/// Pass `transactions` to feed purchases from elsewhere (tests, or a server that receives
/// App Store notifications); the same rules then apply on every platform.
///
/// `process` passes every event through unchanged; the work happens in `start`.
public struct TrialConversionProcessor: SynchronousEventProcessor {
    /// One purchase transaction, reduced to what conversion tracking needs.
    public struct TransactionUpdate: Sendable, Hashable {
        /// The transaction's own ID.
        public var transactionID: String
        /// The ID shared by every renewal of one subscription.
        public var originalTransactionID: String
        public var productID: String
        /// Whether this transaction was bought with a free-trial offer.
        public var isFreeTrial: Bool
        /// Whether the transaction was refunded or revoked.
        public var isRevoked: Bool

        public init(
            transactionID: String,
            originalTransactionID: String,
            productID: String,
            isFreeTrial: Bool,
            isRevoked: Bool = false
        ) {
            self.transactionID = transactionID
            self.originalTransactionID = originalTransactionID
            self.productID = productID
            self.isFreeTrial = isFreeTrial
            self.isRevoked = isRevoked
        }
    }

    /// Produces the transactions to watch; called once, in `start`.
    public typealias TransactionSource = @Sendable () -> AsyncStream<TransactionUpdate>

    private let source: TransactionSource?
    private let listener = Locked<Task<Void, Never>?>(nil)

    /// Creates the processor.
    ///
    /// - Parameter transactions: Where transactions come from (default: StoreKit 2 on Apple
    ///   platforms, nothing elsewhere).
    public init(transactions: TransactionSource? = nil) {
        self.source = transactions ?? TrialConversionProcessor.platformSource
    }

    /// Whether `start` will listen (and has listened) for transactions: false on platforms
    /// without StoreKit unless a source was given.
    public var isListening: Bool { source != nil }

    public func process(_ input: inout EventInput, context: inout EventContext) throws {
        // Events pass unchanged: this processor emits its own conversion events (see `start`).
    }

    public func start(storage: any ProcessorStorage, logger: any Logging, emitter: any EventSending) async {
        guard let source else { return }
        let trials = await Self.loadTrials(from: storage, logger: logger)
        let stream = source()
        let task = Task {
            var tracker = TrialTracker(trials: trials)
            for await update in stream {
                let outcome = tracker.record(update)
                if outcome.changed { await Self.saveTrials(tracker.trials, to: storage, logger: logger) }
                guard let conversion = outcome.conversion else { continue }
                await emitter.send(
                    EventInput(
                        Keys.convertedFromTrial,
                        parameters: [Keys.productID: conversion.productID],
                        skipsReservedPrefixValidation: true
                    )
                )
            }
        }
        let previous = listener.withLock { listener in
            defer { listener = task }
            return listener
        }
        previous?.cancel()
    }

    public func stop() async {
        let task = listener.withLock { listener in
            defer { listener = nil }
            return listener
        }
        task?.cancel()
        await task?.value
    }

    private static func loadTrials(from storage: any ProcessorStorage, logger: any Logging) async -> Set<String> {
        guard let data = await storage.data(forKey: Keys.activeTrialsStorage) else { return [] }
        do {
            return Set(try JSONDecoder().decode([String].self, from: data))
        } catch {
            logger.log(.warning, "TrialConversionProcessor: stored trials are unreadable (\(error)); starting fresh")
            return []
        }
    }

    private static func saveTrials(_ trials: Set<String>, to storage: any ProcessorStorage, logger: any Logging) async {
        do {
            await storage.set(try JSONEncoder().encode(trials.sorted()), forKey: Keys.activeTrialsStorage)
        } catch {
            logger.log(.error, "TrialConversionProcessor: could not encode trials (\(error))")
        }
    }
}

/// The conversion rules over a stream of transactions.
struct TrialTracker {
    struct Conversion: Equatable {
        let originalTransactionID: String
        let productID: String
    }

    /// The original transaction IDs of subscriptions in trial.
    private(set) var trials: Set<String>

    init(trials: Set<String>) {
        self.trials = trials
    }

    /// Applies one transaction: whether the trials changed, and the conversion it completes.
    mutating func record(
        _ update: TrialConversionProcessor.TransactionUpdate
    ) -> (changed: Bool, conversion: Conversion?) {
        let id = update.originalTransactionID
        if update.isRevoked {
            // A refunded trial or a refunded first payment is no conversion.
            return (trials.remove(id) != nil, nil)
        }
        if update.isFreeTrial {
            return (trials.insert(id).inserted, nil)
        }
        guard trials.remove(id) != nil else { return (false, nil) }
        return (true, Conversion(originalTransactionID: id, productID: update.productID))
    }
}
