/// Why a JavaScript transformation left an event unchanged.
public struct JavaScriptFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Kind: String, Sendable, Hashable {
        /// The script does not compile.
        case syntaxError = "syntax error"
        /// The script threw.
        case exception
        /// The script ran past its time limit and was stopped.
        case timeout
        /// After the script, `payload` is not an object of strings, numbers and booleans.
        case invalidPayload = "invalid payload"
        /// The settings carry no script (`js_code` missing or not a string).
        case invalidConfiguration = "invalid configuration"
        /// JavaScriptCore is not available on this platform (watchOS).
        case unavailable
    }

    /// What went wrong.
    public var kind: Kind
    /// The JavaScript error message, or what is wrong with the payload or settings.
    public var message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String {
        "\(kind.rawValue): \(message)"
    }
}
