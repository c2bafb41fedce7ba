/// A purpose the user consents to, e.g. analytics or marketing.
///
/// Purposes are free-form strings; a few common ones are predefined:
///
/// ```swift
/// extension ConsentPurpose { static let crashReports: ConsentPurpose = "crashReports" }
/// ```
public struct ConsentPurpose: RawRepresentable, Hashable, Sendable, Codable, Comparable, ExpressibleByStringLiteral,
    CustomStringConvertible
{
    public var rawValue: String

    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    public init(stringLiteral value: String) {
        self.rawValue = value
    }

    public var description: String { rawValue }

    public static func < (lhs: ConsentPurpose, rhs: ConsentPurpose) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Product analytics.
    public static let analytics: ConsentPurpose = "analytics"
    /// Marketing and attribution.
    public static let marketing: ConsentPurpose = "marketing"
    /// Personalised content.
    public static let personalization: ConsentPurpose = "personalization"
}

/// The user's overall consent decision.
public enum ConsentState: String, Sendable, Hashable, Codable, CaseIterable {
    /// Not asked yet: events wait in the consent queue.
    case undecided
    /// Events flow; the queue was released in order.
    case granted
    /// Events are dropped; the queue was cleared.
    case denied
}
