#if canImport(FoundationEssentials)
public import FoundationEssentials
#else
public import Foundation
#endif

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
        /// application-support directory (`$XDG_DATA_HOME` on Linux).
        public var dataDirectory: URL?
        /// Allows a plain `http://` base URL for a non-loopback host.
        public var allowInsecureHTTP: Bool
        /// The longest `terminate()` spends delivering what is queued (seconds, default 5).
        public var shutdownTimeout: TimeInterval = 5

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

        /// Checks the settings; throws ``TelemetryConfigurationError`` naming the bad field.
        public func validate() throws(TelemetryConfigurationError) {
            if appID.allSatisfy(\.isWhitespace) {
                throw .blankField(name: "appID", reason: "the app id identifies your app at the ingest service")
            }
            if namespace.allSatisfy(\.isWhitespace) {
                throw .blankField(name: "namespace", reason: "the namespace is part of the ingest URL")
            }
        }
    }
}

/// A configuration the SDK cannot work with.
public enum TelemetryConfigurationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A required field is empty or only whitespace.
    case blankField(name: String, reason: String)
    /// The configured endpoint cannot be used.
    case invalidEndpoint(String)
    /// The durable cache or storage could not be opened.
    case unusableDataDirectory(String)

    public var description: String {
        switch self {
        case .blankField(let name, let reason):
            return "Telemetry.Config.\(name) is blank: \(reason). Set it to the value from your dashboard."
        case .invalidEndpoint(let message): return "invalid endpoint: \(message)"
        case .unusableDataDirectory(let message): return "unusable data directory: \(message)"
        }
    }
}
