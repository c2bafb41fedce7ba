#if canImport(StoreKit)
import StoreKit

extension TrialConversionProcessor {
    /// StoreKit 2: running trials from the current entitlements, then every update.
    static var platformSource: TransactionSource? {
        {
            AsyncStream { continuation in
                let task = Task {
                    for await result in StoreKit.Transaction.currentEntitlements {
                        guard case .verified(let transaction) = result, transaction.productType == .autoRenewable,
                            isFreeTrial(transaction)
                        else { continue }
                        continuation.yield(TransactionUpdate(transaction))
                    }
                    for await result in StoreKit.Transaction.updates {
                        guard case .verified(let transaction) = result, transaction.productType == .autoRenewable else {
                            continue
                        }
                        continuation.yield(TransactionUpdate(transaction))
                    }
                    continuation.finish()
                }
                continuation.onTermination = { _ in task.cancel() }
            }
        }
    }

    static func isFreeTrial(_ transaction: StoreKit.Transaction) -> Bool {
        if #available(iOS 17.2, macOS 14.2, tvOS 17.2, watchOS 10.2, visionOS 1.1, *) {
            guard let offer = transaction.offer else { return false }
            return offer.type == .introductory && offer.paymentMode == .freeTrial
        }
        return transaction.offerType == .introductory
    }
}

extension TrialConversionProcessor.TransactionUpdate {
    init(_ transaction: StoreKit.Transaction) {
        self.init(
            transactionID: String(transaction.id),
            originalTransactionID: String(transaction.originalID),
            productID: transaction.productID,
            isFreeTrial: TrialConversionProcessor.isFreeTrial(transaction),
            isRevoked: transaction.revocationDate != nil
        )
    }
}
#else
extension TrialConversionProcessor {
    /// No StoreKit on this platform: nothing to listen to.
    static var platformSource: TransactionSource? { nil }
}
#endif
