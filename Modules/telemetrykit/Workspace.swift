#if Tools
import Foundation
import TelemetryKit
import TelemetryKitHTTP
import TelemetryKitSupport

/// Where `send`, `flush` and `status` keep their queue, endpoint settings and delivery state.
struct Workspace {
    /// The endpoint the CLI sends to.
    struct Settings: Codable, Equatable {
        var endpoint: String
        var appID: String
        var namespace: String
        var allowsInsecureHTTP: Bool

        static let defaults = Settings(
            endpoint: "http://127.0.0.1:8080",
            appID: "TELEMETRYKIT-CLI",
            namespace: "telemetrykit",
            allowsInsecureHTTP: false
        )
    }

    /// What the last runs learned about delivery, for `status`.
    struct DeliveryState: Codable, Equatable {
        var lastSuccess: Date?
        var lastAttempt: Date?
        var consecutiveFailures = 0
        var lastError: String?
    }

    let directory: URL

    var settingsURL: URL { directory.appendingPathComponent("settings.json") }
    var stateURL: URL { directory.appendingPathComponent("delivery-state.json") }
    var cacheDirectory: URL { directory.appendingPathComponent("queue") }

    /// `path`, else `$TELEMETRYKIT_HOME`, else `$XDG_DATA_HOME/telemetrykit`, else
    /// `~/.local/share/telemetrykit`.
    init(path: String?) {
        let environment = ProcessInfo.processInfo.environment
        if let path, !path.isEmpty {
            directory = URL(fileURLWithPath: path, isDirectory: true)
        } else if let home = environment["TELEMETRYKIT_HOME"], !home.isEmpty {
            directory = URL(fileURLWithPath: home, isDirectory: true)
        } else if let data = environment["XDG_DATA_HOME"], !data.isEmpty {
            directory = URL(fileURLWithPath: data, isDirectory: true).appendingPathComponent("telemetrykit")
        } else {
            directory = FileManager.default.homeDirectoryForCurrentUser
                .appendingPathComponent(".local/share/telemetrykit", isDirectory: true)
        }
    }

    func loadSettings() -> Settings? {
        guard let data = try? Data(contentsOf: settingsURL) else { return nil }
        return try? Self.decoder.decode(Settings.self, from: data)
    }

    func save(_ settings: Settings) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Self.encoder.encode(settings).write(to: settingsURL, options: .atomic)
    }

    func loadState() -> DeliveryState {
        guard let data = try? Data(contentsOf: stateURL),
            let state = try? Self.decoder.decode(DeliveryState.self, from: data)
        else { return DeliveryState() }
        return state
    }

    func save(_ state: DeliveryState) throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try Self.encoder.encode(state).write(to: stateURL, options: .atomic)
    }

    private static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    private static var decoder: JSONDecoder {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }
}

/// An ``HTTPConnection`` that remembers the last failure, so `status` can show it.
final class RecordingConnection: HTTPConnection {
    private let base: any HTTPConnection
    private let failure = Locked<String?>(nil)

    init(base: any HTTPConnection = URLSessionHTTPConnection()) {
        self.base = base
    }

    var lastFailure: String? { failure.current }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        do {
            let response = try await base.send(request)
            if !(200..<300).contains(response.statusCode) {
                let body = String(decoding: response.body.prefix(120), as: UTF8.self)
                failure.set("HTTP \(response.statusCode) \(body)")
            }
            return response
        } catch {
            failure.set(Self.describe(error))
            throw error
        }
    }

    private static func describe(_ error: any Error) -> String {
        if let urlError = error as? URLError {
            switch urlError.code {
            case .cannotConnectToHost: return "connection refused"
            case .timedOut: return "timed out"
            case .networkConnectionLost: return "connection lost"
            case .cannotFindHost: return "host not found"
            default: return "network error \(urlError.code.rawValue)"
            }
        }
        return "\(error)"
    }
}
#endif
