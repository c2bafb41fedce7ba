import TelemetryKit

/// What every event must be for the ingest to accept it, checked once per event by the
/// client before it is queued, so that one bad event is refused alone instead of costing the
/// batch it would be sent in.
enum EventRules {
    /// The longest parameter key, in UTF-8 bytes.
    static let maximumKeyBytes = 256

    /// Why `event` would be refused, or nil when it is fine.
    ///
    /// - Parameter maximumBytes: The most bytes one event may encode to
    ///   (``Event/estimatedEncodedSize``).
    static func refusal(for event: Event, maximumBytes: Int) -> EventRefusal? {
        if isBlank(event.type) { return EventRefusal(eventName: event.type, reason: .blankName) }
        var reason: EventRefusal.Reason?
        event.forEachPayloadEntry { key, _ in
            guard reason == nil else { return }
            if isBlank(key) {
                reason = .blankParameterKey
            } else if key.utf8.count > maximumKeyBytes {
                reason = .parameterKeyTooLong(key: key, limit: maximumKeyBytes)
            }
        }
        if let reason { return EventRefusal(eventName: event.type, reason: reason) }
        let size = event.estimatedEncodedSize
        if size > maximumBytes {
            return EventRefusal(eventName: event.type, reason: .tooLarge(bytes: size, limit: maximumBytes))
        }
        return nil
    }

    /// Empty or white space only. Every event's every key passes through here, so a key that
    /// starts with a visible ASCII character (nearly all) is decided by its first byte.
    private static func isBlank(_ text: String) -> Bool {
        guard let first = text.utf8.first else { return true }
        if first > 0x20 && first < 0x7F { return false }
        return text.unicodeScalars.allSatisfy { $0.properties.isWhitespace }
    }
}
