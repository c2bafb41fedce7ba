public import Foundation

/// What kind of error `errorOccurred` reports (`TelemetryDeck.Error.category`).
public enum ErrorCategory: String, Sendable, Hashable, CaseIterable {
    /// An error thrown and caught in code.
    case thrownException = "thrown-exception"
    /// Invalid input from the user.
    case userInput = "user-input"
    /// The app reached an unexpected state.
    case appState = "app-state"
}

/// An error with a stable id, so that occurrences of the same error group together in
/// `TelemetryDeck.Error.occurred` however their messages differ.
///
/// ```swift
/// enum ImportError: IdentifiableError {
///     case badLine(Int)
///     var id: String { "ImportError.badLine" }
/// }
/// await Telemetry.errorOccurred(identifiableError: ImportError.badLine(3))
/// ```
public protocol IdentifiableError: Error {
    /// Groups occurrences of this error; keep values such as line numbers out of it.
    var id: String { get }
}

/// Any error with an id attached: `someError.with(id: "Sync.timeout")`.
public struct AnyIdentifiableError: LocalizedError, IdentifiableError {
    public let id: String
    public let error: any Error

    public init(id: String, error: any Error) {
        self.id = id
        self.error = error
    }

    /// Wraps `error` with a derived id: its own ``IdentifiableError/id``; for an enum,
    /// `Type.case` without the associated values (`ImportError.badLine` for
    /// `.badLine(3)`); otherwise the type's name.
    public init(_ error: any Error) {
        if let identifiable = error as? any IdentifiableError {
            self.init(id: identifiable.id, error: error)
            return
        }
        let typeName = String(describing: type(of: error))
        let mirror = Mirror(reflecting: error)
        guard mirror.displayStyle == .enum else {
            self.init(id: typeName, error: error)
            return
        }
        // A case with a payload reflects as one child labelled with the case name.
        let caseName = mirror.children.first?.label ?? String(describing: error)
        self.init(id: "\(typeName).\(caseName)", error: error)
    }

    /// The wrapped error's `localizedDescription`, as in TelemetryDeck v3: a `LocalizedError`'s
    /// `errorDescription` first, an `NSError`'s localized description (`"Test error"`, not
    /// the `Error Domain=… UserInfo=…` dump, which can carry paths and URLs and would split
    /// one error into many groups on the dashboard), else Foundation's generic sentence.
    public var errorDescription: String? {
        error.localizedDescription
    }
}

extension Error {
    /// This error with a stable id for `errorOccurred(identifiableError:)`.
    ///
    /// ```swift
    /// } catch {
    ///     await Telemetry.errorOccurred(identifiableError: error.with(id: "Sync.failed"))
    /// }
    /// ```
    public func with(id: String) -> AnyIdentifiableError {
        AnyIdentifiableError(id: id, error: self)
    }
}

/// Why a preset was not sent.
public enum PresetError: Error, Sendable, Hashable, CustomStringConvertible {
    /// `userRatingSubmitted` got a rating outside 0…10.
    case ratingOutOfRange(Int)

    public var description: String {
        switch self {
        case .ratingOutOfRange(let rating):
            return "userRatingSubmitted: rating \(rating) is outside 0...10; the event was not sent"
        }
    }
}
