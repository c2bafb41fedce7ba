#if Tools
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Headless Chromium driven over the DevTools protocol while a page stays open, for what a
/// one-shot `--dump-dom` cannot see: where the page is scrolled, and what is on screen after
/// the page has updated itself.
///
/// `--remote-debugging-pipe` makes the browser read commands from its descriptor 3 and write
/// replies to its descriptor 4, each message JSON ended by a NUL byte; both are one end of a
/// socket pair here (a socket, not a pipe, so that writing to a browser that died is an error,
/// not a SIGPIPE that ends the test process). No port, no WebSocket.
final class HeadlessChromium {
    private let process: pid_t
    private let socket: Int32
    private let profile: URL
    private var received: [UInt8] = []
    private var lastID = 0
    /// The DevTools session of the page (flat mode: its commands name it).
    private var session: String?
    private var closed = false

    /// How long one command may wait for its reply before the test fails instead of hanging.
    private static let replyTimeoutMilliseconds: Int32 = 60_000

    /// Starts the browser on `url` in a window of `width` × `height` and attaches to the page.
    init(_ url: String, width: Int = 1280, height: Int = 900) throws {
        profile = FileManager.default.temporaryDirectory
            .appendingPathComponent("telemetrykit-chromium-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        var ends: [Int32] = [0, 0]
        guard socketpair(AF_UNIX, Self.streamType, 0, &ends) == 0 else {
            throw BrowserTestError("socketpair failed: errno \(errno)")
        }
        // Above the descriptors the child gets (3 and 4), and closed in it on exec.
        let ours = fcntl(ends[0], F_DUPFD_CLOEXEC, 10)
        let theirs = fcntl(ends[1], F_DUPFD_CLOEXEC, 10)
        closeDescriptor(ends[0])
        closeDescriptor(ends[1])
        guard ours >= 0, theirs >= 0 else { throw BrowserTestError("fcntl failed: errno \(errno)") }
        defer { closeDescriptor(theirs) }
        #if canImport(Darwin)
        var one: Int32 = 1
        setsockopt(ours, SOL_SOCKET, SO_NOSIGPIPE, &one, socklen_t(MemoryLayout<Int32>.size))
        #endif
        socket = ours

        let arguments = [
            try CollectorPageBrowserTests.chromium().path, "--headless", "--no-sandbox", "--disable-gpu",
            "--disable-dev-shm-usage", "--no-first-run", "--user-data-dir=\(profile.path)",
            "--window-size=\(width),\(height)", "--hide-scrollbars", "--remote-debugging-pipe", url,
        ]
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t?
        #else
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, theirs, 3)
        posix_spawn_file_actions_adddup2(&actions, theirs, 4)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
        let argv = arguments.map { strdup($0) } + [nil]
        let envp = environment.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid = pid_t()
        let status = posix_spawn(&pid, arguments[0], &actions, nil, argv, envp)
        guard status == 0 else {
            closeDescriptor(ours)
            try? FileManager.default.removeItem(at: profile)
            throw BrowserTestError("chromium could not be started: error \(status)")
        }
        process = pid

        do {
            let targets = try command("Target.getTargets")
            let infos = (targets["targetInfos"] as? [[String: Any]]) ?? []
            guard let page = infos.first(where: { $0["type"] as? String == "page" }),
                let target = page["targetId"] as? String
            else { throw BrowserTestError("chromium opened no page: \(infos)") }
            let attached = try command("Target.attachToTarget", ["targetId": target, "flatten": true])
            guard let session = attached["sessionId"] as? String else {
                throw BrowserTestError("no DevTools session for the page: \(attached)")
            }
            self.session = session
        } catch {
            close()
            throw error
        }
    }

    /// Runs `expression` in the page and returns its value, which must be a string (wrap other
    /// values in `JSON.stringify`); a JavaScript exception fails with its text.
    func evaluate(_ expression: String) throws -> String {
        let reply = try command("Runtime.evaluate", ["expression": expression, "returnByValue": true])
        if let exception = reply["exceptionDetails"] {
            throw BrowserTestError("\(expression) threw: \(exception)")
        }
        guard let result = reply["result"] as? [String: Any], let value = result["value"] as? String else {
            throw BrowserTestError("\(expression) gave no string: \(reply)")
        }
        return value
    }

    /// The value of `expression`, a `JSON.stringify` of something `T` decodes.
    func evaluate<T: Decodable>(_ expression: String, as type: T.Type) throws -> T {
        try JSONDecoder().decode(T.self, from: Data(try evaluate(expression).utf8))
    }

    /// Waits until `condition` (JavaScript giving true or false) holds in the page, evaluating
    /// it every 50 ms for at most `seconds`: a page that never gets there fails the test with
    /// the text it shows, instead of hanging it.
    func wait(until condition: String, seconds: Double = 60) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while try evaluate("String(Boolean(\(condition)))") != "true" {
            guard Date() < deadline else {
                let shown = (try? evaluate("document.body.innerText")) ?? "?"
                throw BrowserTestError("the page never got to \(condition); it shows: \(shown.prefix(2_000))")
            }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
    }

    /// Closes the browser and removes its profile (also when the test failed).
    func close() {
        guard !closed else { return }
        closed = true
        if session != nil {
            session = nil
            _ = try? command("Browser.close")
        }
        closeDescriptor(socket)
        // The browser ends once its DevTools pipe is closed; one that does not is killed.
        var status: Int32 = 0
        var ended = false
        for _ in 0..<200 where !ended {
            ended = waitpid(process, &status, WNOHANG) == process
            if !ended { usleep(50_000) }
        }
        if !ended {
            kill(process, SIGKILL)
            waitpid(process, &status, 0)
        }
        try? FileManager.default.removeItem(at: profile)
    }

    deinit {
        close()
    }

    /// Sends `method` with `parameters` (to the page's session once attached) and returns the
    /// reply's result; events and replies to other commands that arrive first are skipped.
    private func command(_ method: String, _ parameters: [String: Any] = [:]) throws -> [String: Any] {
        lastID += 1
        var message: [String: Any] = ["id": lastID, "method": method, "params": parameters]
        if let session { message["sessionId"] = session }
        var bytes = [UInt8](try JSONSerialization.data(withJSONObject: message))
        bytes.append(0)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Self.noSignal) }
            guard count > 0 else { throw BrowserTestError("chromium stopped reading (\(method), errno \(errno))") }
            sent += count
        }
        while true {
            let reply = try nextMessage(method)
            guard reply["id"] as? Int == lastID else { continue }
            if let error = reply["error"] { throw BrowserTestError("\(method) failed: \(error)") }
            return (reply["result"] as? [String: Any]) ?? [:]
        }
    }

    /// The next message from the browser.
    private func nextMessage(_ method: String) throws -> [String: Any] {
        while true {
            if let end = received.firstIndex(of: 0) {
                let message = Data(received[..<end])
                received.removeSubrange(...end)
                guard let object = try JSONSerialization.jsonObject(with: message) as? [String: Any] else {
                    throw BrowserTestError("chromium sent a message that is not an object")
                }
                return object
            }
            var ready = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let polled = poll(&ready, 1, Self.replyTimeoutMilliseconds)
            guard polled > 0 else { throw BrowserTestError("chromium did not answer \(method) in time") }
            var chunk = [UInt8](repeating: 0, count: 65_536)
            let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { throw BrowserTestError("chromium closed its DevTools pipe (\(method))") }
            received += chunk[..<count]
        }
    }

    #if canImport(Darwin)
    private static let streamType = SOCK_STREAM
    private static let noSignal: Int32 = 0
    #else
    private static let streamType = Int32(SOCK_STREAM.rawValue)
    private static let noSignal = Int32(MSG_NOSIGNAL)
    #endif
}

/// `close(2)`, which the method `HeadlessChromium.close()` hides inside the class.
private func closeDescriptor(_ descriptor: Int32) {
    _ = close(descriptor)
}
#endif
