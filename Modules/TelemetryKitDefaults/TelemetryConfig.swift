public import Foundation
public import TelemetryKitClient

extension Telemetry {
    /// The app's telemetry settings.
    ///
    /// ```swift
    /// var config = Telemetry.Config(appID: "APP-ID", namespace: "my-namespace")
    /// config.defaultParameters = ["plan": "pro"]
    /// ```
    public struct Config: Sendable {
        /// The app id issued by the ingest service. Must not be blank.
        public var appID: String
        /// The namespace of the ingest endpoint. Must not be blank.
        public var namespace: String
        /// The ingest service. Events go to `{apiBaseURL}/v2/namespace/{namespace}/`.
        public var apiBaseURL: URL
        /// Appended to the user identifier before hashing.
        public var salt: String
        /// Marks events as test data; `nil` means on in DEBUG builds.
        public var testMode: Bool?
        /// The user identifier when neither the event nor `setUserIdentifier` gives one.
        public var defaultUser: String?
        /// Prepended to event names (not to SDK events).
        public var eventPrefix: String?
        /// Prepended to custom parameter keys (not to SDK keys).
        public var parameterPrefix: String?
        /// Added to every event; per-event parameters win.
        public var defaultParameters: EventParameters
        /// Whether a `TelemetryDeck.Session.started` event is sent for each new session.
        public var sendSessionStartedEvent: Bool
        /// When and how events are sent.
        public var deliveryPolicy: DeliveryPolicy
        /// The app version, for platforms without an app bundle (Linux servers and tools).
        public var appVersion: String?
        /// The build number, for platforms without an app bundle.
        public var buildNumber: String?
        /// Where the durable cache and the processor storage live; default: the platform's
        /// application-support directory (`$XDG_DATA_HOME` on Linux). Processes that set the
        /// same directory share one queue, one user and one install (server workers, a CLI
        /// beside a daemon).
        public var dataDirectory: URL?
        /// The app group whose container holds the durable cache and the processor storage
        /// (`<container>/TelemetryKit/<appID>`), so an app and its widgets and extensions share
        /// one queue, one user id and one install. Apple platforms only: elsewhere set
        /// ``dataDirectory`` to a shared directory. `dataDirectory` wins when both are set.
        ///
        /// ```swift
        /// var config = Telemetry.Config(appID: "APP-ID", namespace: "my-namespace")
        /// config.appGroupIdentifier = "group.com.example.app"   // same line in the extension
        /// ```
        public var appGroupIdentifier: String?
        /// Allows a plain `http://` base URL for a non-loopback host.
        public var allowInsecureHTTP: Bool
        /// How long `terminate()` keeps retrying to deliver what is queued after its first
        /// attempt (seconds, default 5); what is left stays queued for the next launch.
        public var shutdownTimeout: TimeInterval = 5
        /// The data protection of the queue's and the storage's files on iOS, iPadOS, tvOS,
        /// watchOS and visionOS (elsewhere it has no effect). Default
        /// ``FileProtection/completeUntilFirstUserAuthentication``: readable in the background
        /// once the device was unlocked after starting, which a silent push or a background
        /// task needs; an app whose entitlement makes its files `complete` would otherwise
        /// lose those launches' events.
        public var fileProtection: FileProtection = .completeUntilFirstUserAuthentication

        /// The default ingest service.
        public static let defaultAPIBaseURL = URL(string: "https://nom.telemetrydeck.com")!

        public init(
            appID: String,
            namespace: String,
            apiBaseURL: URL = Config.defaultAPIBaseURL,
            salt: String = "",
            testMode: Bool? = nil,
            defaultUser: String? = nil,
            eventPrefix: String? = nil,
            parameterPrefix: String? = nil,
            defaultParameters: EventParameters = [:],
            sendSessionStartedEvent: Bool = true,
            deliveryPolicy: DeliveryPolicy = .default,
            appVersion: String? = nil,
            buildNumber: String? = nil,
            dataDirectory: URL? = nil,
            allowInsecureHTTP: Bool = false
        ) {
            self.appID = appID
            self.namespace = namespace
            self.apiBaseURL = apiBaseURL
            self.salt = salt
            self.testMode = testMode
            self.defaultUser = defaultUser
            self.eventPrefix = eventPrefix
            self.parameterPrefix = parameterPrefix
            self.defaultParameters = defaultParameters
            self.sendSessionStartedEvent = sendSessionStartedEvent
            self.deliveryPolicy = deliveryPolicy
            self.appVersion = appVersion
            self.buildNumber = buildNumber
            self.dataDirectory = dataDirectory
            self.allowInsecureHTTP = allowInsecureHTTP
        }

        /// What a second `initialize` may not change while the SDK runs: where events go and
        /// who they are from.
        var identity: [String] { [appID, namespace, apiBaseURL.absoluteString, salt] }

        /// Checks the settings; throws a ``TelemetryError`` naming the bad field.
        public func validate() throws(TelemetryError) {
            if appID.allSatisfy(\.isWhitespace) {
                throw .blankField(name: "appID", reason: "the app id identifies your app at the ingest service")
            }
            if namespace.allSatisfy(\.isWhitespace) {
                throw .blankField(name: "namespace", reason: "the namespace is part of the ingest URL")
            }
        }
    }
}

/// Why `Telemetry.initialize` failed: a code to switch over and a message that says what to fix.
///
/// `initialize` throws only this type (typed throws), so code written for TelemetryDeck v3's
/// `TelemetryDeckError` needs only the rename:
///
/// ```swift
/// do {
///     try await Telemetry.initialize(appID: appID, namespace: "my-namespace")
/// } catch {
///     logger.error("telemetry is off: \(error.debugDescription)")   // error: TelemetryError
/// }
/// ```
public struct TelemetryError: Error, LocalizedError, CustomDebugStringConvertible, CustomStringConvertible, Sendable {
    /// What went wrong. The raw values continue TelemetryDeck v3's (`invalidConfiguration`
    /// is 1001 there too), so code that logs or compares `errorCode` keeps working.
    public enum Code: Int, Sendable, Hashable, CaseIterable {
        /// A required setting is blank or malformed.
        case invalidConfiguration = 1001
        /// The ingest endpoint cannot be used (scheme, host, insecure HTTP).
        case invalidEndpoint = 1002
        /// The durable cache or the processor storage could not be opened.
        case unusableDataDirectory = 1003
        /// `initialize` was called again with another app id, namespace, endpoint or salt
        /// while the SDK runs (`terminate()` first to switch).
        case alreadyInitialized = 1004
        /// `removeAllData()` could not erase part of the data (a queue, or a storage without
        /// `removeAll()`); the message names it. The rest was erased.
        case dataNotErased = 1005

        /// Matches a thrown ``TelemetryError`` with this code, as v3's `Code ~=` does:
        ///
        /// ```swift
        /// do { try await Telemetry.initialize(appID: "", namespace: "app") }
        /// catch let error where TelemetryError.Code.invalidConfiguration ~= error { … }
        /// ```
        public static func ~= <E: Error>(match: Code, error: E) -> Bool {
            (error as? TelemetryError)?.code == match
        }
    }

    public let code: Code
    /// What went wrong and what to do about it.
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// A blank required field of `Telemetry.Config`.
    public static func blankField(name: String, reason: String) -> TelemetryError {
        TelemetryError(
            .invalidConfiguration,
            "Telemetry.Config.\(name) is blank: \(reason). Set it to the value from your dashboard."
        )
    }

    public var errorDescription: String? { message }
    public var description: String { message }
    public var debugDescription: String { "TelemetryError(\(code), \(message))" }

    /// Matches any `TelemetryError` with the same code: `catch TelemetryError.invalidEndpoint`.
    public static func ~= <E: Error>(match: Self, error: E) -> Bool {
        (error as? TelemetryError)?.code == match.code
    }

    public static let invalidConfiguration = TelemetryError(.invalidConfiguration, "invalid configuration")
    public static let invalidEndpoint = TelemetryError(.invalidEndpoint, "invalid endpoint")
    public static let unusableDataDirectory = TelemetryError(.unusableDataDirectory, "unusable data directory")
}
