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

    /// Makes sure the queue directory exists and can be written, or says in a sentence why
    /// not and what to do: what `send` and `flush` need before they touch the queue.
    func prepare() throws(CommandFailure) {
        let advice = "Pass --directory (or set TELEMETRYKIT_HOME) to a directory you can write to."
        // A file on the way: creating the directory would fail with an error naming no path.
        var path = directory.standardizedFileURL
        while path.path != "/" {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                let what = path == directory.standardizedFileURL ? "" : ", so \(directory.path) cannot be one"
                throw CommandFailure("\(path.path) is a file, not a directory\(what). \(advice)")
            }
            path.deleteLastPathComponent()
        }
        do {
            try FileManager.default.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
        } catch {
            throw CommandFailure(
                "Cannot create the queue directory \(cacheDirectory.path) (\(error.localizedDescription)). \(advice)"
            )
        }
        guard FileManager.default.isWritableFile(atPath: cacheDirectory.path) else {
            throw CommandFailure("The queue directory \(cacheDirectory.path) is not writable. \(advice)")
        }
    }

    /// Saves `settings`, or says why it could not.
    func remember(_ settings: Settings) throws(CommandFailure) {
        do {
            try save(settings)
        } catch {
            throw CommandFailure("Cannot save the settings to \(settingsURL.path) (\(error.localizedDescription)).")
        }
    }

    /// The queue, or a sentence saying why it cannot be opened.
    func openQueue(logger: any Logging) throws(CommandFailure) -> any EventCaching {
        do {
            return try makeEventCache(directory: cacheDirectory, logger: logger)
        } catch {
            throw CommandFailure(
                "Cannot open the queue in \(cacheDirectory.path) (\(error)). "
                    + "Free space on the disk or check the directory, then retry."
            )
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
