import TelemetryKitSupport

/// Logs a refused event once per event name.
///
/// Why once: an app that builds a bad event in a loop (a blank name from an empty variable)
/// would otherwise fill its log with the same line; the count of every refusal is in
/// `TelemetryStats.refused`. The names remembered are bounded, so a stream of distinct bad
/// names cannot grow memory without end; past the bound, each is logged again.
final class RefusalLog: Sendable {
    private static let rememberedNames = 256
    private let logged = Locked<Set<String>>([])

    func report(_ refusal: EventRefusal, to logger: any Logging) {
        let first = logged.withLock { names -> Bool in
            if names.count >= Self.rememberedNames { names.removeAll(keepingCapacity: true) }
            return names.insert(refusal.eventName).inserted
        }
        if first {
            logger.log(.error, "\(refusal) (this event name is logged once; TelemetryStats.refused counts all)")
        }
    }
}
