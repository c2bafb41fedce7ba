// Full Foundation: `CustomNSError` and `NSLocalizedDescriptionKey` are not in FoundationEssentials.
public import Foundation

/// The error as an `NSError`, with TelemetryDeck v3's domain and codes, so crash reporters and
/// code that matches `(error as NSError).domain == "TelemetryDeck"` see what they saw with v3.
extension TelemetryError: CustomNSError {
    /// `"TelemetryDeck"`, v3's domain.
    public static var errorDomain: String { "TelemetryDeck" }
    /// The code's raw value, e.g. 1001 for ``Code/invalidConfiguration``.
    public var errorCode: Int { code.rawValue }
    /// The message under `NSLocalizedDescriptionKey`.
    public var errorUserInfo: [String: Any] { [NSLocalizedDescriptionKey: message] }
}
