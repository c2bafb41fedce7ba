#if Tools
import Foundation
import Testing
import TelemetryKit
import TelemetryKitCollector
import TelemetryKitHTTP
import TelemetryKitSupport
import TelemetryKitTrackingPlan
import TelemetryKitTypedEvents

/// The collector's page in a real browser: headless Chromium (Debian's `chromium`, which
/// scripts/install-system-packages.sh installs) loads it, runs its JavaScript, and the test
/// reads what ended up on screen.
@Suite(.serialized) struct CollectorPageBrowserTests {
    private let connection = URLSessionHTTPConnection()

    /// The browser, or a failure saying how to install it: a missing browser must not pass.
    static func chromium() throws -> URL {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") {
            for name in ["chromium", "chromium-browser"] {
                let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(name)
                if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            }
        }
        throw BrowserTestError(
            "Chromium is not installed, so the page cannot be checked in a browser: "
                + "run scripts/install-system-packages.sh (it installs Debian's chromium)."
        )
    }

    /// Runs headless Chromium with `arguments` and the page's URL; returns standard output.
    /// The virtual time budget lets the page's script fetch the events and draw before the
    /// browser reports, without waiting that long in real time.
    private static func browse(_ url: String, _ arguments: [String]) throws -> String {
        let profile = FileManager.default.temporaryDirectory
            .appendingPathComponent("telemetrykit-chromium-\(UUID().uuidString)", isDirectory: true)
        defer { try? FileManager.default.removeItem(at: profile) }
        let output = profile.appendingPathComponent("stdout")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        try Data().write(to: output)
        let handle = try FileHandle(forWritingTo: output)
        let process = Process()
        process.executableURL = try chromium()
        process.arguments =
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--user-data-dir=\(profile.path)", "--virtual-time-budget=5000", "--window-size=1280,900",
            ] + arguments + [url]
        process.standardOutput = handle
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try handle.close()
        guard process.terminationStatus == 0 else {
            throw BrowserTestError("chromium exited with \(process.terminationStatus)")
        }
        return String(decoding: try Data(contentsOf: output), as: UTF8.self)
    }

    private func post(_ collector: Collector, _ body: [UInt8]) async throws -> Int {
        let url = try #require(URL(string: collector.baseURL + "/v2/namespace/ns/"))
        let request = HTTPRequest(
            url: url,
            headers: [HTTPHeader("Content-Type", "application/json")],
            body: Data(body),
            timeout: 30
        )
        return try await connection.send(request).statusCode
    }

    private func event(_ type: String, _ payload: [String: PayloadValue]) -> Event {
        Event(appID: "APP", type: type, clientUser: "user-42", receivedAt: Date(), payload: payload)
    }

    /// Events as an app sends them: its own parameters beside the SDK's.
    private func sendTheScene(to collector: Collector) async throws {
        let sdk: [String: PayloadValue] = [
            "TelemetryDeck.Device.operatingSystem": "Linux", "TelemetryDeck.AppInfo.version": "1.2",
        ]
        let first = try await post(
            collector,
            EventWireEncoder.encode([
                event("App.launched", sdk),
                event("Checkout.completed", sdk.merging(["screen": "checkout", "items": 3]) { $1 }),
            ])
        )
        let second = try await post(
            collector,
            EventWireEncoder.encode([
                event("Checkout.completed", sdk.merging(["screen": "cart", "items": 1]) { $1 }),
                event("<script>alert(1)</script>", ["note": "<b>bold</b>"]),
            ])
        )
        let valid = String(decoding: EventWireEncoder.encode([event("Checkout.completed", [:])]), as: UTF8.self)
        let refused = try await post(
            collector,
            Array(valid.replacingOccurrences(of: #""isTestMode":"false""#, with: #""isTestMode":false"#).utf8)
        )
        #expect([first, second, refused] == [Int]([200, 200, 400]))
    }

    @Test func thePageShowsTheRowsFoldedParametersRejectionsAndChart() async throws {
        let collector = try await Collector.start()
        try await sendTheScene(to: collector)
        let dom = try Self.browse(collector.baseURL + "/", ["--dump-dom"])
        await collector.shutdown()

        // The rows, newest first, one per event, the summary above them.
        let rows = try #require(dom.range(of: #"<tbody id="rows">"#).map { dom[$0.upperBound...] })
        let body = String(rows[..<(rows.range(of: "</tbody>")?.lowerBound ?? rows.endIndex)])
        #expect(body.components(separatedBy: "<tr ").count - 1 == 4)
        let types = body.components(separatedBy: #"<td class="type" title=""#).dropFirst().map {
            String($0.prefix { $0 != "\"" })
        }
        #expect(
            types == [
                "&lt;script&gt;alert(1)&lt;/script&gt;", "Checkout.completed", "Checkout.completed", "App.launched",
            ]
        )
        #expect(dom.contains("4 events received, 0 duplicates, 3 requests, 1 rejected."))
        // An event named <script> is text: the only script element is the page's own.
        #expect(dom.components(separatedBy: "<script").count - 1 == 1)
        #expect(
            body.contains(
                #"<span class="p" title="note = &lt;b&gt;bold&lt;/b&gt;"><b>note=</b>&lt;b&gt;bold&lt;/b&gt;</span>"#
            )
        )
        // The app's own parameters on the line; the SDK's folded behind one click.
        #expect(body.contains(#"<span class="p" title="screen = cart"><b>screen=</b>cart</span>"#))
        #expect(
            body.contains(
                #"<details class="sdk"><summary>+2 SDK</summary><span class="p" title="AppInfo.version = 1.2">"#
            )
        )
        #expect(!body.contains("<details class=\"sdk\" open"))
        // Counts per type and the chart's bars for this minute.
        #expect(dom.contains(#"<td class="count">2</td><td class="name">Checkout.completed</td>"#))
        #expect(dom.contains(#"data-type="Checkout.completed" data-count="2""#))
        #expect(dom.contains(#"data-type="App.launched" data-count="1""#))
        // The rejected request with its status, reason, event and member.
        #expect(dom.contains(#"<span id="rejected-count">1</span>"#))
        #expect(
            dom.contains(
                #"<span class="status">400</span> <span class="reason">Malformed body: at byte "#
            )
        )
        #expect(dom.contains(#"event 0: member 'isTestMode' must be the string "true" or "false", not a JSON boolean"#))
        #expect(dom.contains(" · /v2/namespace/ns/ · event 0 · member isTestMode</div>"))
        #expect(dom.contains(#"<pre class="offending">{"#))
    }

    @Test func theFiltersByTypeAndTextHideTheOtherRows() async throws {
        let collector = try await Collector.start()
        try await sendTheScene(to: collector)
        let byType = try Self.browse(collector.baseURL + "/?type=Checkout.completed", ["--dump-dom"])
        let byBoth = try Self.browse(collector.baseURL + "/?type=Checkout.completed&q=cart", ["--dump-dom"])
        let byText = try Self.browse(collector.baseURL + "/?q=BOLD", ["--dump-dom"])
        await collector.shutdown()

        /// The types of the rows left visible.
        func shown(_ dom: String) -> [String] {
            dom.components(separatedBy: "<tr data-type=\"").dropFirst().filter {
                !$0.prefix { $0 != ">" }.contains(" hidden")
            }.map { String($0.prefix { $0 != "\"" }) }
        }
        #expect(shown(byType) == ["Checkout.completed", "Checkout.completed"])
        #expect(byType.contains(#"<span id="shown">2 of 4 shown</span>"#))
        #expect(shown(byBoth) == ["Checkout.completed"])
        #expect(byBoth.contains(#"<span id="shown">1 of 4 shown</span>"#))
        #expect(shown(byText) == ["&lt;script&gt;alert(1)&lt;/script&gt;"])
    }

    @Test func violatingEventsAreMarkedOnThePage() async throws {
        let plan = TrackingPlan(events: [EventSchema(name: "Checkout.completed")])
        let collector = try await Collector.start(Collector.Configuration(trackingPlan: plan))
        let status = try await post(
            collector,
            EventWireEncoder.encode([event("Checkout.completed", [:]), event("Checkout.complete", [:])])
        )
        let dom = try Self.browse(collector.baseURL + "/", ["--dump-dom"])
        await collector.shutdown()

        #expect(status == 200)
        #expect(dom.contains("2 events received, 0 duplicates, 1 requests, 0 rejected, 1 break the tracking plan."))
        #expect(dom.components(separatedBy: #" class="violation">"#).count - 1 == 1)
        #expect(
            dom.contains(
                #"<span class="violation-text">✗ 'Checkout.complete' is not in the tracking plan</span></td></tr>"#
            )
        )
    }

    /// Where the reader is: the window's scroll offset, and the row at the middle of the
    /// window (its text: type, user, parameters) with its top edge in the window.
    private struct View: Decodable {
        var scrollY: Double
        var row: String
        var top: Double
    }

    private static let view = """
        JSON.stringify((() => {
          const tr = document.elementFromPoint(640, 450)?.closest("#rows tr");
          return {scrollY: window.scrollY, row: tr ? tr.dataset.text : "", top: tr ? tr.getBoundingClientRect().top : -1};
        })())
        """

    /// The first row the filters let through, and whether it is on screen.
    private static let newestShown = """
        JSON.stringify((() => {
          const tr = [...document.querySelectorAll("#rows tr")].find((row) => !row.hidden);
          const box = tr.getBoundingClientRect();
          return {scrollY: window.scrollY, row: tr.dataset.text, top: box.top};
        })())
        """

    /// The page open in the browser, a reader scrolled down the events: new rows, new types
    /// (a longer table of counts) and a rejection all grow the page above what they read, and
    /// none of it moves it. At the top, new events come into view instead. With a filter too,
    /// where the newest row is hidden. The page turns the browser's own scroll anchoring off
    /// (Safari has none), so this checks the page's script, not Chromium's anchoring.
    @Test(arguments: ["/", "/?type=Screen.shown"])
    func newEventsDoNotMoveWhatAReaderScrolledDownIsReading(address: String) async throws {
        let collector = try await Collector.start()
        let screens = (1...120).map { event("Screen.shown", ["index": .int($0)]) }
        #expect(try await post(collector, EventWireEncoder.encode(screens)) == 200)
        // The newest row is of another type: the filter hides it.
        #expect(try await post(collector, EventWireEncoder.encode([event("App.launched", [:])])) == 200)
        let browser = try HeadlessChromium(collector.baseURL + address)
        defer { browser.close() }
        let rowCount = "document.querySelectorAll('#rows tr').length"
        try await browser.wait(until: "\(rowCount) === 121")

        // At the top, a new event shows at the top of the list, on screen.
        #expect(try await post(collector, EventWireEncoder.encode([event("Screen.shown", ["index": 121])])) == 200)
        try await browser.wait(until: "\(rowCount) === 122")
        let atTheTop = try browser.evaluate(Self.newestShown, as: View.self)
        #expect(atTheTop.scrollY == 0)
        #expect(atTheTop.row == "screen.shown user-42 index=121")
        #expect(atTheTop.top > 0 && atTheTop.top < 900)

        // Scrolled down, reading the rows in the middle of the window.
        #expect(try browser.evaluate("window.scrollTo(0, 1500); String(window.scrollY)") == "1500")
        let before = try browser.evaluate(Self.view, as: View.self)
        #expect(before.row.hasPrefix("screen.shown user-42 index="))

        let more = (122...151).map { event("Screen.shown", ["index": .int($0)]) }
        let features = (1...12).map { event("Feature\($0).used", [:]) }
        #expect(try await post(collector, EventWireEncoder.encode(more)) == 200)
        #expect(try await post(collector, EventWireEncoder.encode(features)) == 200)
        let valid = String(decoding: EventWireEncoder.encode([event("Checkout.completed", [:])]), as: UTF8.self)
        let refused = valid.replacingOccurrences(of: #""isTestMode":"false""#, with: #""isTestMode":false"#)
        #expect(try await post(collector, Array(refused.utf8)) == 400)
        try await browser.wait(
            until: "\(rowCount) === 164 && document.querySelectorAll('#types tr').length === 14"
                + " && document.getElementById('rejected-count').textContent === '1'"
        )
        let after = try browser.evaluate(Self.view, as: View.self)
        browser.close()
        await collector.shutdown()

        #expect(after.row == before.row)
        #expect(abs(after.top - before.top) < 1, "the row moved from \(before.top) to \(after.top)")
        // The page grew above the row: 30 rows (42 unfiltered), 12 types, the rejection.
        #expect(after.scrollY > before.scrollY + 30 * 20)
    }

    /// The picture kept in the collector's documentation: regenerate it with
    /// `TELEMETRYKIT_COLLECTOR_SCREENSHOT=Modules/TelemetryKitCollector/TelemetryKitCollector.docc/Resources/collector-page.png`.
    @Test func thePageRendersAScreenshot() async throws {
        let collector = try await Collector.start()
        try await sendTheScene(to: collector)
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("telemetrykit-screenshot-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("page.png")
        _ = try Self.browse(collector.baseURL + "/", ["--screenshot=\(file.path)", "--hide-scrollbars"])
        await collector.shutdown()

        let png = try Data(contentsOf: file)
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        // 1280 × 900 pixels, the window asked for (the width and height of the IHDR chunk).
        #expect(Array(png[16..<24]) == [0, 0, 0x05, 0x00, 0, 0, 0x03, 0x84])
        if let keep = ProcessInfo.processInfo.environment["TELEMETRYKIT_COLLECTOR_SCREENSHOT"] {
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(at: file, to: URL(fileURLWithPath: keep))
        }
    }
}

struct BrowserTestError: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
#endif
