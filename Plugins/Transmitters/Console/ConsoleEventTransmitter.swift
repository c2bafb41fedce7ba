public import TelemetryKit

/// Prints every event on one line and always reports `.delivered`: for development,
/// debugging a pipeline, and command-line tools.
///
/// ```swift
/// let console = Destination(id: "console", transmitter: ConsoleEventTransmitter())
/// // 2024-06-15T14:00:00.123Z Screen.shown screen=home count=3 (+21 TelemetryDeck.*)
/// ```
///
/// A line holds the time, the event name, `floatValue`, a `[test]` mark for test-mode
/// events, and the app's own parameters sorted by key; the SDK's `TelemetryDeck.*`
/// parameters are only counted unless ``showsSDKParameters`` is set. Values with spaces or
/// quotes are quoted, and line breaks are escaped so one event is always one line.
public struct ConsoleEventTransmitter: EventTransmitting {
    /// Where lines go.
    public enum Output: Sendable {
        case standardError
        case standardOutput
        /// Each batch's lines joined by newlines, ending with one, in a single call.
        case text(@Sendable (String) -> Void)
    }

    public let output: Output
    /// Whether to print the SDK's `TelemetryDeck.*` parameters too. Default `false`.
    public let showsSDKParameters: Bool

    /// Creates a console transmitter writing to `output` (default standard error).
    public init(output: Output = .standardError, showsSDKParameters: Bool = false) {
        self.output = output
        self.showsSDKParameters = showsSDKParameters
    }

    public func transmit(_ batch: [Event]) async -> TransmissionOutcome {
        guard !batch.isEmpty else { return .delivered }
        var text = ""
        for event in batch {
            text += line(for: event)
            text += "\n"
        }
        // One write per batch keeps lines of concurrent batches from interleaving.
        switch output {
        case .standardError: DescriptorOutput.write(text, to: DescriptorOutput.standardError)
        case .standardOutput: DescriptorOutput.write(text, to: DescriptorOutput.standardOutput)
        case .text(let handler): handler(text)
        }
        return .delivered
    }

    /// The line printed for `event`, without a line break.
    public func line(for event: Event) -> String {
        var parts = [ISO8601.string(from: event.receivedAt), Self.escaped(event.type)]
        if let floatValue = event.floatValue {
            parts.append("floatValue=\(floatValue)")
        }
        if event.isTestMode == "true" {
            parts.append("[test]")
        }
        var hidden = 0
        let payload = event.payload
        for key in payload.keys.sorted() {
            guard let value = payload[key] else { continue }
            if !showsSDKParameters && SDKInfo.isReserved(key) {
                hidden += 1
                continue
            }
            parts.append("\(Self.escaped(key))=\(Self.quotedIfNeeded(value))")
        }
        if hidden > 0 {
            parts.append("(+\(hidden) \(SDKInfo.reservedPrefix)*)")
        }
        return parts.joined(separator: " ")
    }

    private static func quotedIfNeeded(_ value: PayloadValue) -> String {
        guard case .string(let string) = value else { return value.stringValue }
        let escapedValue = escaped(string)
        if string.isEmpty || string.contains(where: { $0 == " " || $0 == "\"" || $0 == "=" }) {
            var quoted = "\""
            for character in escapedValue {
                if character == "\"" { quoted += "\\" }
                quoted.append(character)
            }
            return quoted + "\""
        }
        return escapedValue
    }

    /// Replaces line breaks and other control characters so the text stays on one line.
    private static func escaped(_ string: String) -> String {
        guard string.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return string }
        var result = ""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                result += "\\u{\(String(scalar.value, radix: 16))}"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}
